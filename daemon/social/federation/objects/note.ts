/**
 * Statuses as ActivityPub Notes, with their audience as Mastodon addresses it: public → to Public,
 * cc followers; unlisted → to followers, cc Public; private → to followers; mentions in cc (or to,
 * for direct statuses) and as Mention tags, hashtags as Hashtag tags, custom emoji as Emoji tags;
 * a status with a poll is a Question.
 */
import type { StatusParts, StatusRow } from '../../statuses/repo.js';
import type { FederationContext } from '../context.js';
import { ActorsRepo, type ActorRow } from '../actors/repo.js';
import { withContext } from './context.js';
import { renderAttachments } from './attachments.js';
import { PUBLIC, isoSeconds, type Json } from './ld.js';
import { emojiTags } from './emoji-tags.js';
import type { StoredEmoji } from '../../statuses/emojis.js';
import { asQuestion } from './question.js';

export interface RenderedNote {
  note: Json;
  author: ActorRow;
  to: string[];
  cc: string[];
  mentioned: ActorRow[];
}

export function acctAddress(actor: Pick<ActorRow, 'username' | 'domain'>, localDomain: string): string {
  return `@${actor.username}@${actor.domain ?? localDomain}`;
}

export function followersOf(actor: ActorRow): string {
  return actor.followers_url ?? `${actor.uri}/followers`;
}

export class NoteRenderer {
  private readonly actors: ActorsRepo;

  constructor(private readonly fed: FederationContext) {
    this.actors = new ActorsRepo(fed.social);
  }

  /** `parts`: which parts the status has, when known (`StatusesRepo.byIdWithParts`): the others are not read. */
  async render(row: StatusRow, parts?: StatusParts): Promise<RenderedNote | null> {
    const author = await this.actors.byId(row.account_id);
    if (!author) return null;
    const has = (part: keyof StatusParts) => !parts || Boolean(parts[part]);
    const mentionRows = has('has_mentions') ? await this.fed.services.statuses.mentions([row.id]) : [];
    const mentioned = await this.actors.byIds(mentionRows.map((m) => m.account_id));
    const { to, cc } = audience(
      row.visibility,
      author,
      mentioned.map((a) => a.uri),
    );
    const parent = row.in_reply_to_id ? await this.fed.services.statuses.byId(row.in_reply_to_id) : undefined;
    const note: Json = {
      id: row.uri,
      type: 'Note',
      summary: row.spoiler_text || null,
      inReplyTo: parent?.uri ?? null,
      published: isoSeconds(row.created_at),
      url: row.url ?? row.uri,
      attributedTo: author.uri,
      to,
      cc,
      sensitive: Boolean(row.sensitive),
      content: row.content,
      contentMap: row.language ? { [row.language]: row.content } : undefined,
      tag: [
        ...mentioned.map((a) => ({ type: 'Mention', href: a.uri, name: acctAddress(a, this.fed.localDomain) })),
        ...(has('has_tags') ? await this.hashtags(row.id) : []),
        ...emojiTags(JSON.parse(row.emojis || '[]') as StoredEmoji[]),
      ],
      attachment: has('has_media') ? await this.attachments(row.id) : [],
    };
    const poll = has('has_poll') ? await this.fed.services.polls.byStatus(row.id) : undefined;
    if (poll) asQuestion(note, poll, this.fed.social.now());
    if (row.edited_at) note.updated = isoSeconds(row.edited_at);
    if (note.contentMap === undefined) delete note.contentMap;
    return { note, author, to, cc, mentioned };
  }

  /** Its hashtags, which peers index the post under (Mastodon reads them from here, not from the HTML). */
  private async hashtags(statusId: string): Promise<Json[]> {
    const rows = await this.fed.services.tags.namesOf([statusId]);
    return rows.map(({ name }) => ({
      type: 'Hashtag',
      href: `${this.fed.social.config.baseUrl}/tags/${encodeURIComponent(name.toLowerCase())}`,
      name: `#${name}`,
    }));
  }

  private async attachments(statusId: string): Promise<Json[]> {
    const media = this.fed.services.media;
    return renderAttachments(await media.ofStatuses([statusId]), media.storage);
  }

  async renderWithContext(row: StatusRow): Promise<Json | null> {
    const rendered = await this.render(row);
    return rendered ? withContext(rendered.note) : null;
  }
}

export function audience(visibility: string, author: ActorRow, mentionUris: string[]): { to: string[]; cc: string[] } {
  const followers = followersOf(author);
  switch (visibility) {
    case 'public':
      return { to: [PUBLIC], cc: [followers, ...mentionUris] };
    case 'unlisted':
      return { to: [followers], cc: [PUBLIC, ...mentionUris] };
    case 'private':
      return { to: [followers], cc: mentionUris };
    default:
      return { to: mentionUris, cc: [] };
  }
}
