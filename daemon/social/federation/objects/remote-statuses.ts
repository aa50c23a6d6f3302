/**
 * Remote statuses: Notes from peers, checked (an id on the author's host, attributed to the actor
 * who sent it), sanitized and stored with their URIs, mentions, hashtags and audience, and mention
 * notifications for local accounts through the same notification rules as local posts.
 */
import type { Knex } from 'knex';
import { nowIso } from '../../time.js';
import type { FetchContext } from '../context.js';
import type { StatusesService } from '../../statuses/service.js';
import type { ActorRow } from '../actors/repo.js';
import type { RemoteActors } from '../actors/remote.js';
import { sanitizeRemoteHtml, htmlToText } from './sanitize.js';
import { attachmentRows, parseAttachments } from './attachments.js';
import { hashtagNames } from '../../tags/parse.js';
import { usedEmojis } from '../../statuses/emojis.js';
import { parseEmojiTags } from './emoji-tags.js';
import { parsePoll, type ParsedPoll } from './question.js';
import { peerPollChanged } from '../../polls/service.js';
import {
  asArray,
  hasType,
  hostOf,
  httpUrl,
  idOf,
  ids,
  InvalidDocumentError,
  isObject,
  isPublic,
  str,
  type Json,
} from './ld.js';

/** The statuses service's door for a peer's statuses: the one write door for statuses, with the reads beside it. */
export type PeerStatusDoor = Pick<StatusesService, 'createFromPeer' | 'editFromPeer' | 'byId' | 'byUri' | 'idAt'>;

export const NOTE_TYPES = ['Note', 'Article', 'Page', 'Question'];
const MAX_CONTENT = 100_000;

export interface ParsedNote {
  uri: string;
  url: string | null;
  attributedTo: string;
  contentHtml: string;
  summary: string;
  sensitive: boolean;
  language: string | null;
  inReplyTo: string | null;
  published: string;
  visibility: 'public' | 'unlisted' | 'private' | 'direct';
  mentionUris: string[];
  /** The names of its `Hashtag` tags. */
  hashtags: string[];
  /** The raw `tag` value, for its `Emoji` entries (read with the address policy). */
  tag: unknown;
  /** The raw `attachment` value, read by parseAttachments with the address policy. */
  attachment: unknown;
  /** A Question's poll. */
  poll: ParsedPoll | null;
}

export function parseNote(object: unknown, actor: ActorRow): ParsedNote {
  if (!isObject(object) || !hasType(object, ...NOTE_TYPES)) throw new InvalidDocumentError('object is not a note');
  const uri = httpUrl(object.id);
  if (!uri) throw new InvalidDocumentError('note has no id');
  if (hostOf(uri) !== actor.domain) throw new InvalidDocumentError(`note ${uri} is not on its author's host`);
  const attributedTo = ids(object.attributedTo)[0];
  if (attributedTo !== actor.uri) throw new InvalidDocumentError(`note ${uri} is not attributed to ${actor.uri}`);
  const content = str(object.content) ?? '';
  if (content.length > MAX_CONTENT) throw new InvalidDocumentError(`note ${uri} is too long`);
  const contentMap = isObject(object.contentMap) ? Object.keys(object.contentMap) : [];
  const published = Date.parse(str(object.published) ?? '');
  return {
    uri,
    attributedTo,
    url:
      httpUrl(object.url) ??
      httpUrl(
        asArray(object.url)
          .map((u) => (isObject(u) ? u.href : u))
          .find((u) => typeof u === 'string'),
      ),
    contentHtml: sanitizeRemoteHtml(content),
    summary: (str(object.summary) ?? '').slice(0, 1000),
    sensitive: object.sensitive === true || Boolean(str(object.summary)),
    language: contentMap[0] && /^[a-z]{2,3}(-[A-Za-z0-9]+)?$/.test(contentMap[0]) ? contentMap[0] : null,
    inReplyTo: idOf(object.inReplyTo),
    published: Number.isFinite(published) ? new Date(published).toISOString() : new Date().toISOString(),
    visibility: visibilityOf(object, actor),
    attachment: object.attachment,
    mentionUris: asArray(object.tag)
      .filter((tag) => isObject(tag) && tag.type === 'Mention')
      .map((tag) => httpUrl((tag as Json).href))
      .filter((u): u is string => u !== null),
    tag: object.tag,
    poll: hasType(object, 'Question') ? parsePoll(object) : null,
    hashtags: hashtagNames(
      asArray(object.tag)
        .filter((tag) => isObject(tag) && tag.type === 'Hashtag')
        .map((tag) => str((tag as Json).name))
        .filter((n): n is string => n !== null),
    ),
  };
}

function visibilityOf(object: Json, actor: ActorRow): ParsedNote['visibility'] {
  const to = ids(object.to);
  const cc = ids(object.cc);
  if (to.some(isPublic)) return 'public';
  if (cc.some(isPublic)) return 'unlisted';
  const followers = actor.followers_url ?? `${actor.uri}/followers`;
  return [...to, ...cc].includes(followers) ? 'private' : 'direct';
}

export class RemoteStatuses {
  constructor(
    private readonly fed: FetchContext,
    private readonly actors: RemoteActors,
    private readonly door: PeerStatusDoor,
  ) {}

  private get polls() {
    return this.fed.services.polls;
  }

  byUri(uri: string) {
    return this.door.byUri(uri);
  }

  /** A status not deleted known here by its id or web address. */
  idAt(address: string): Promise<string | undefined> {
    return this.door.idAt(address);
  }

  /**
   * Stores a Note from `actor` (once) through the statuses service, as a local post: in its
   * thread, with its mentions, media, hashtags and poll; returns the status id.
   */
  async store(object: unknown, actor: ActorRow): Promise<string> {
    const note = parseNote(object, actor);
    // Stored once: the door answers a known URI's id (and a copy racing this one's).
    const parent = note.inReplyTo ? await this.byUri(note.inReplyTo) : undefined;
    const now = nowIso(this.fed.social.now());
    const poll = note.poll;
    return this.door.createFromPeer(
      {
        columns: {
          account_id: actor.id,
          uri: note.uri,
          url: note.url ?? note.uri,
          text: htmlToText(note.contentHtml),
          content: note.contentHtml,
          spoiler_text: note.summary,
          sensitive: note.sensitive ? 1 : 0,
          visibility: note.visibility,
          language: note.language,
          emojis: this.emojisOf(note),
          created_at: note.published,
        },
        inReplyToId: parent?.id ?? null,
        mentions: await this.mentionedAccounts(note.mentionUris),
      },
      [
        (trx, id) => this.insertMedia(trx, note, actor, id, now),
        async (trx, id) => {
          if (note.hashtags.length) await this.fed.services.tags.tagStatus(trx, id, note.hashtags);
        },
        async (trx, id) => {
          if (poll)
            await this.polls.insert(
              trx,
              { ...poll, id: this.fed.social.ids.next(), statusId: id, accountId: actor.id, hideTotals: false },
              now,
            );
        },
      ],
    );
  }

  /** The custom emoji its text and warning use, as stored JSON. */
  private emojisOf(note: ParsedNote): string {
    return JSON.stringify(usedEmojis(parseEmojiTags(note.tag, this.fed.policy), note.contentHtml, note.summary));
  }

  /** The Note's attachments as media rows referencing the peer's files by `remote_url`. */
  private async insertMedia(
    trx: Knex,
    note: ParsedNote,
    actor: ActorRow,
    statusId: string,
    now: string,
  ): Promise<void> {
    const rows = attachmentRows(
      parseAttachments(note.attachment, this.fed.policy),
      () => this.fed.social.ids.next(),
      actor.id,
      statusId,
      now,
    );
    await this.fed.services.media.attachFromPeer(trx, rows);
  }

  /**
   * An edited Note: content, warning, sensitivity, media, hashtags and poll replaced, `edited_at`
   * set, kept in its history. A Question whose text did not change is its server publishing new
   * vote counts: only the poll is refreshed, as Mastodon does, and that is no edit. The edit goes
   * through the statuses service, as a local edit.
   */
  async update(object: unknown, actor: ActorRow): Promise<string | null> {
    const note = parseNote(object, actor);
    const existing = await this.byUri(note.uri);
    if (!existing || existing.account_id !== actor.id || existing.deleted_at) return null;
    const now = nowIso(this.fed.social.now());
    const stored = (await this.door.byId(existing.id))!;
    const poll = await this.polls.byStatus(existing.id);
    const sameText =
      stored.content === note.contentHtml &&
      stored.spoiler_text === note.summary &&
      Boolean(stored.sensitive) === note.sensitive;
    if (sameText && note.poll && poll && !peerPollChanged(poll, note.poll)) {
      await this.fed.social.db.transaction((trx) =>
        this.polls.replaceRemote(trx, existing.id, { ...note.poll!, hideTotals: false }, now),
      );
      return existing.id;
    }
    let replaced: string[] = [];
    // Through the statuses service, as a local edit: the history, the new text, then media, hashtags and poll.
    await this.door.editFromPeer(
      actor.id,
      existing.id,
      {
        content: note.contentHtml,
        text: htmlToText(note.contentHtml),
        spoiler_text: note.summary,
        sensitive: note.sensitive ? 1 : 0,
        emojis: this.emojisOf(note),
      },
      [
        // The peer's attachments are replaced; their local copies (if cached) go after the commit.
        async (trx) => {
          replaced = await this.fed.services.media.detachFromPeer(trx, existing.id);
          await this.insertMedia(trx, note, actor, existing.id, now);
        },
        (trx) => this.fed.services.tags.retagStatus(trx, existing.id, note.hashtags),
        (trx) => this.polls.replaceFromPeer(trx, existing.id, actor.id, poll, note.poll, now),
      ],
    );
    await this.fed.services.media.forgetFiles(replaced);
    return existing.id;
  }

  /** A status by URI: known, or fetched from its server with its author. */
  async resolve(uri: string): Promise<string> {
    const known = await this.byUri(uri);
    if (known) return known.id;
    const { json } = await this.fed.client.getJson(uri);
    if (!isObject(json)) throw new InvalidDocumentError(`${uri} is not a JSON object`);
    const authorUri = ids(json.attributedTo)[0];
    if (!authorUri) throw new InvalidDocumentError(`${uri} has no author`);
    const author = await this.actors.resolve(authorUri);
    if (author.domain === null) throw new InvalidDocumentError(`${uri} claims a local author`);
    return this.store(json, author);
  }

  private async mentionedAccounts(uris: string[]): Promise<ActorRow[]> {
    const out: ActorRow[] = [];
    for (const uri of [...new Set(uris)].slice(0, 50)) {
      const account = await this.actors.repo.byUri(uri);
      if (account && !account.suspended_at) out.push(account);
    }
    return out;
  }
}
