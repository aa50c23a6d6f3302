/**
 * The status rules: posting (visibility, content warning, replies, mentions, application),
 * visibility everywhere (statuses/visibility.ts: a status the viewer may not see is 404), soft deletion, favourites,
 * reblogs (422 for a private status), bookmarks, pins and conversation mutes, with the
 * notifications each action creates or removes.
 */
import type { Knex } from 'knex';
import { notFound, unprocessable } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import { AccountsRepo, type PosterRow } from '../accounts/repo.js';
import type { NotificationsService } from '../notifications/service.js';
import { FAMILIES, type RateLimitHeaders, type RateLimiter } from '../ratelimit/limiter.js';
import { textToHtml, type MentionLink } from './html.js';
import { resolveMentions, type ResolvedMention } from './mentions.js';
import { StatusesRepo, type StatusRow } from './repo.js';
import { ThreadRepo, type Descendant, type ThreadLimits } from './thread-repo.js';
import { StatusEditsRepo } from './edits-repo.js';
import { StatusVisibility } from './visibility.js';
import { StatusWrites, type EditedText } from './writes.js';
import { ConversationsRepo } from '../conversations/repo.js';
import { localEmojisIn } from '../instance/custom-emojis.js';
import type { NewStatus, PeerStatus, PeerStatusStep, RemoteAccountFinder, StatusHooks } from './posting-hooks.js';

export const MAX_CHARS = 500;
export const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;
/** A reblog is never direct (Mastodon's). */
const REBLOG_VISIBILITIES = ['public', 'unlisted', 'private'];
const MAX_PINS = 5;
/** Mastodon's context limits: a signed-in viewer gets the whole thread, anyone else a part of it. */
const SIGNED_IN_THREAD: ThreadLimits = { ancestors: 4096, descendants: 4096, depth: null };
const ANONYMOUS_THREAD: ThreadLimits = { ancestors: 40, descendants: 60, depth: 20 };

export type { NewStatus, StatusCreateHook, StatusEditHook, RemoteAccountFinder, StatusHooks } from './posting-hooks.js';

/** The status if the viewer may see it, and for a reblog its original too; 404 otherwise. */
export async function visibleStatus(repo: StatusesRepo, id: string, viewerId: string | null): Promise<StatusRow> {
  const row = await repo.visibleById(id, viewerId);
  if (!row) throw notFound();
  if (row.reblog_of_id) await visibleStatus(repo, row.reblog_of_id, viewerId);
  return row;
}

export class StatusesService {
  readonly repo: StatusesRepo;
  readonly edits: StatusEditsRepo;
  readonly visibility: StatusVisibility;
  private readonly thread: ThreadRepo;
  private readonly accounts: AccountsRepo;
  private readonly writes: StatusWrites;
  /** `remoteAccounts`: finds a mentioned remote account not known here (federation: WebFinger); null without federation. */
  constructor(
    private readonly ctx: SocialContext,
    private readonly notifications: NotificationsService,
    private readonly limiter: RateLimiter,
    private readonly hooks: StatusHooks,
    private readonly remoteAccounts: RemoteAccountFinder | null,
  ) {
    this.repo = new StatusesRepo(ctx);
    this.thread = new ThreadRepo(ctx);
    this.edits = new StatusEditsRepo(ctx);
    this.visibility = new StatusVisibility(ctx);
    this.accounts = new AccountsRepo(ctx);
    this.writes = new StatusWrites(
      ctx,
      this.repo,
      this.edits,
      this.accounts,
      new ConversationsRepo(ctx),
      notifications,
    );
  }

  mentions(...args: Parameters<StatusesRepo['mentions']>): ReturnType<StatusesRepo['mentions']> {
    return this.repo.mentions(...args);
  }

  // The reads routes answer with, as the repo makes them.
  actedOn(...args: Parameters<StatusesRepo['actedOn']>): ReturnType<StatusesRepo['actedOn']> {
    return this.repo.actedOn(...args);
  }
  actors(...args: Parameters<StatusesRepo['actors']>): ReturnType<StatusesRepo['actors']> {
    return this.repo.actors(...args);
  }
  ofAccount(...args: Parameters<StatusesRepo['ofAccount']>): ReturnType<StatusesRepo['ofAccount']> {
    return this.repo.ofAccount(...args);
  }
  byId(...args: Parameters<StatusesRepo['byId']>): ReturnType<StatusesRepo['byId']> {
    return this.repo.byId(...args);
  }
  byIdWithParts(...args: Parameters<StatusesRepo['byIdWithParts']>): ReturnType<StatusesRepo['byIdWithParts']> {
    return this.repo.byIdWithParts(...args);
  }
  byUri(...args: Parameters<StatusesRepo['byUri']>): ReturnType<StatusesRepo['byUri']> {
    return this.repo.byUri(...args);
  }
  idAt(...args: Parameters<StatusesRepo['idAt']>): ReturnType<StatusesRepo['idAt']> {
    return this.repo.idAt(...args);
  }

  /**
   * The status if the viewer may see it (statuses/visibility.ts), and for a reblog its original
   * too; 404 otherwise (missing, deleted, private, direct, blocked).
   */
  visible(id: string, viewerId: string | null): Promise<StatusRow> {
    return visibleStatus(this.repo, id, viewerId);
  }

  /**
   * The checks a new status passes before anything is written (422 or 404), also when it is only
   * scheduled: text, visibility, the status it answers, and each create hook's (media, hashtags).
   */
  async check(
    authorId: string,
    input: NewStatus,
  ): Promise<{
    author: PosterRow;
    text: string;
    visibility: string;
    language: string | null;
    parent: StatusRow | null;
    steps: Array<((trx: Knex, statusId: string) => Promise<void>) | null>;
  }> {
    const text = input.status ?? '';
    if (text.trim() === '' && !input.media_ids?.length) throw unprocessable("Validation failed: Text can't be blank");
    if ([...text].length > MAX_CHARS)
      throw unprocessable(`Validation failed: Text character limit of ${MAX_CHARS} exceeded`);
    const author = (await this.accounts.poster(authorId))!;
    const visibility = input.visibility ?? author.default_privacy ?? 'public';
    if (!(VISIBILITIES as readonly string[]).includes(visibility))
      throw unprocessable('Validation failed: Visibility is not included in the list');
    const parent = input.in_reply_to_id ? await this.visible(input.in_reply_to_id, authorId) : null;
    if (parent?.reblog_of_id) throw unprocessable('Validation failed: Cannot reply to a reblog');
    const steps = await Promise.all(this.hooks.create.map((hook) => hook.prepare(authorId, input, text)));
    return { author, text, visibility, language: input.language || author.default_language || null, parent, steps };
  }

  async create(authorId: string, input: NewStatus): Promise<{ id: string; headers: RateLimitHeaders }> {
    const { author, text, visibility, language, parent, steps } = await this.check(authorId, input);
    const mentioned = await this.resolveMentions(text);
    const emojis = await localEmojisIn(this.ctx, text, input.spoiler_text ?? '');
    const id = this.ctx.ids.next();
    const now = nowIso(this.ctx.now());
    const uri = `${author.uri}/statuses/${id}`;
    const links: MentionLink[] = mentioned.map(({ match, account }) => ({
      match,
      url: account.url ?? account.uri,
      username: account.username,
    }));
    let headers!: RateLimitHeaders;
    await this.ctx.db.transaction(async (trx) => {
      await this.writes.insert(
        trx,
        {
          id,
          account_id: authorId,
          uri,
          url: `${this.ctx.config.baseUrl}/@${author.username}/${id}`,
          local: 1,
          text,
          content: this.hooks.create.reduce(
            (html, hook) => hook.content?.(html, text) ?? html,
            textToHtml(text, links),
          ),
          spoiler_text: (input.spoiler_text ?? '').trim(),
          sensitive: input.sensitive || (input.spoiler_text ?? '').trim() !== '' ? 1 : 0,
          visibility,
          language,
          emojis,
          application_id: input.appId,
          created_at: now,
          updated_at: now,
        },
        parent,
        mentioned.map((m) => m.account.id),
        steps,
        // Counted last, the author's counters in the same statement where the engine can: the
        // window's and the account's rows stay locked until the commit, so an account's concurrent
        // posts wait on each other only for that last round trip (a refusal still rolls all back).
        async (counters) => {
          headers = await this.limiter.record(trx, authorId, FAMILIES.statuses, counters);
        },
      );
    });
    await this.writes.published(
      { id, authorId, local: true },
      mentioned.map((m) => m.account.id),
    );
    return { id, headers };
  }

  /**
   * A peer's new status (a Create delivered, or a Note fetched), stored as a local post is: in the
   * conversation of the status it answers (or a new one), with its mentions, `steps` (its media,
   * hashtags and poll) in the same transaction and the counters; then the local accounts it
   * mentions notified and status.created. Stored once per URI: a second copy (a delivery racing a
   * fetch) answers the first one's id.
   */
  async createFromPeer(
    { columns, inReplyToId, mentions }: PeerStatus,
    steps: readonly PeerStatusStep[],
  ): Promise<string> {
    if (!(VISIBILITIES as readonly string[]).includes(columns.visibility))
      throw unprocessable('Validation failed: Visibility is not included in the list');
    const known = await this.repo.byUri(columns.uri);
    if (known) return known.id;
    const parent = inReplyToId ? ((await this.repo.byId(inReplyToId)) ?? null) : null;
    const id = this.ctx.ids.next();
    const row = { ...columns, id, local: 0, updated_at: nowIso(this.ctx.now()) };
    const mentionedIds = mentions.map((m) => m.id);
    try {
      await this.ctx.db.transaction((trx) => this.writes.insert(trx, row, parent, mentionedIds, steps));
    } catch (error) {
      const stored = await this.repo.byUri(columns.uri);
      if (stored) return stored.id;
      throw error;
    }
    const local = mentions.filter((m) => m.domain === null);
    await this.writes.published(
      { id, authorId: columns.account_id, local: false },
      local.map((m) => m.id),
    );
    return id;
  }

  /**
   * Edits one's own status (Mastodon's PUT /api/v1/statuses/:id): text, content warning,
   * sensitivity and language replaced, `edited_at` set, both versions kept in its history; newly
   * mentioned accounts are notified.
   */
  async edit(
    authorId: string,
    id: string,
    input: Omit<NewStatus, 'visibility' | 'in_reply_to_id' | 'appId'>,
  ): Promise<void> {
    const row = await this.repo.byId(id);
    if (!row || row.deleted_at || row.account_id !== authorId || row.reblog_of_id) throw notFound();
    const text = input.status ?? row.text;
    if (text.trim() === '') throw unprocessable("Validation failed: Text can't be blank");
    if ([...text].length > MAX_CHARS)
      throw unprocessable(`Validation failed: Text character limit of ${MAX_CHARS} exceeded`);
    const mentioned = await this.resolveMentions(text);
    const before = new Set((await this.repo.mentions([id])).map((m) => m.account_id));
    const links: MentionLink[] = mentioned.map(({ match, account }) => ({
      match,
      url: account.url ?? account.uri,
      username: account.username,
    }));
    const spoiler = (input.spoiler_text ?? row.spoiler_text).trim();
    const emojis = await localEmojisIn(this.ctx, text, spoiler);
    const steps = await Promise.all(this.hooks.edit.map((hook) => hook.prepare(authorId, id, input)));
    await this.writes.edit(
      authorId,
      id,
      {
        text,
        content: textToHtml(text, links),
        spoiler_text: spoiler,
        sensitive: (input.sensitive ?? Boolean(row.sensitive)) || spoiler !== '' ? 1 : 0,
        language: input.language ?? row.language,
        emojis,
      },
      [
        (trx) =>
          this.writes.mention(
            trx,
            id,
            row.visibility,
            mentioned.map((m) => m.account.id),
          ),
        ...steps,
      ],
    );
    const added = mentioned.filter((m) => !before.has(m.account.id));
    await this.writes.notifyMentions(
      id,
      authorId,
      added.map((m) => m.account.id),
    );
  }

  /**
   * A peer's edit of its status, stored as the local edit is: the history around it, the new text
   * and terms through the repo, `steps` (its media, hashtags and poll) in the same transaction,
   * then status.updated.
   */
  async editFromPeer(
    authorId: string,
    id: string,
    text: Omit<EditedText, 'language'>,
    steps: ReadonlyArray<(trx: Knex) => Promise<void>>,
  ): Promise<void> {
    await this.writes.edit(authorId, id, text, steps);
  }

  private resolveMentions(text: string): Promise<ResolvedMention[]> {
    return resolveMentions(text, this.ctx.localDomain, this.accounts, this.remoteAccounts);
  }

  /** Soft-deletes at once (the row stays for reports); its reblogs go with it. */
  async delete(viewerId: string, id: string): Promise<StatusRow> {
    const row = await this.repo.byId(id);
    if (!row || row.deleted_at || row.account_id !== viewerId) throw notFound();
    await this.ctx.db.transaction(async (trx) => {
      await this.repo.softDelete(trx, id);
      await this.accounts.adjustCounter(trx, viewerId, 'statuses_count', -1);
      if (row.in_reply_to_id) await this.repo.adjust(trx, row.in_reply_to_id, 'replies_count', -1);
      if (row.reblog_of_id) await this.repo.adjust(trx, row.reblog_of_id, 'reblogs_count', -1);
      for (const reblog of await this.repo.reblogsOf(trx, id)) {
        await this.repo.softDelete(trx, reblog.id);
        await this.accounts.adjustCounter(trx, reblog.account_id, 'statuses_count', -1);
      }
      await this.notifications.remove(trx, { statusId: id });
      await this.notifications.remove(trx, { activityId: id });
    });
    this.ctx.events.emit('status.deleted', { statusId: id, accountId: viewerId, uri: row.uri });
    return row;
  }

  async favourite(viewerId: string, id: string): Promise<void> {
    const row = await this.visible(id, viewerId);
    const target = await this.original(row);
    const created = await this.ctx.db.transaction(async (trx) => {
      const added = await this.repo.addAction(trx, 'favourites', viewerId, target.id);
      if (added) await this.repo.adjust(trx, target.id, 'favourites_count', 1);
      return added;
    });
    if (!created) return;
    this.ctx.events.emit('favourite.created', { accountId: viewerId, statusId: target.id });
    await this.notifications.notify({
      recipientId: target.account_id,
      fromId: viewerId,
      type: 'favourite',
      statusId: target.id,
    });
  }

  async unfavourite(viewerId: string, id: string): Promise<string> {
    const row = await this.visible(id, viewerId);
    const target = await this.original(row);
    const removed = await this.ctx.db.transaction(async (trx) => {
      const gone = await this.repo.removeAction(trx, 'favourites', viewerId, target.id);
      if (gone) {
        await this.repo.adjust(trx, target.id, 'favourites_count', -1);
        await this.notifications.remove(trx, {
          accountId: target.account_id,
          fromAccountId: viewerId,
          type: 'favourite',
          statusId: target.id,
        });
      }
      return gone;
    });
    if (removed) this.ctx.events.emit('favourite.removed', { accountId: viewerId, statusId: target.id });
    return target.id;
  }

  /**
   * Reblogs the original (a reblog of a reblog reblogs the original); returns the reblog's id. A
   * peer's Announce passes its id as `peerUri`: the reblog is then stored under it, as not ours.
   */
  async reblog(
    viewerId: string,
    id: string,
    visibility = 'public',
    peerUri: string | null = null,
  ): Promise<{ id: string; headers: RateLimitHeaders }> {
    const row = await this.visible(id, viewerId);
    const target = await this.original(row);
    if (target.visibility === 'private' || target.visibility === 'direct')
      throw unprocessable('Validation failed: Reblog of status is not allowed');
    if (!REBLOG_VISIBILITIES.includes(visibility))
      throw unprocessable('Validation failed: Visibility is not included in the list');
    const headers = await this.limiter.peek(viewerId, FAMILIES.statuses);
    const existing = await this.repo.reblogBy(viewerId, target.id);
    if (existing) return { id: existing.id, headers };
    const author = (await this.accounts.byId(viewerId))!;
    const reblogId = this.ctx.ids.next();
    const now = nowIso(this.ctx.now());
    try {
      await this.ctx.db.transaction(async (trx) => {
        await this.repo.insertStatus(trx, {
          id: reblogId,
          account_id: viewerId,
          uri: peerUri ?? `${author.uri}/statuses/${reblogId}/activity`,
          url: null,
          local: peerUri ? 0 : 1,
          visibility,
          reblog_of_id: target.id,
          created_at: now,
          updated_at: now,
        });
        await this.repo.adjust(trx, target.id, 'reblogs_count', 1);
        await this.accounts.adjustCounter(trx, viewerId, 'statuses_count', 1);
      });
    } catch (error) {
      // A concurrent request made the reblog first (unique index): answer that one.
      const made = await this.repo.reblogBy(viewerId, target.id);
      if (made) return { id: made.id, headers };
      throw error;
    }
    this.ctx.events.emit('reblog.created', { accountId: viewerId, statusId: target.id, reblogId });
    this.ctx.events.emit('status.created', { statusId: reblogId, accountId: viewerId, local: true });
    await this.notifications.notify({
      recipientId: target.account_id,
      fromId: viewerId,
      type: 'reblog',
      statusId: target.id,
      activityId: reblogId,
    });
    return { id: reblogId, headers };
  }

  /**
   * The viewer takes back their reblog of a status; returns the original's id for the answer. The
   * reblog is the viewer's own, so it goes even if they may no longer see the original (its author
   * blocked them since); the answer is still 404 to whoever may not see the status, as GET's is.
   */
  async unreblog(viewerId: string, id: string): Promise<string> {
    const row = await this.repo.byId(id);
    if (row && !row.deleted_at) await this.removeReblog(viewerId, row.reblog_of_id ?? row.id);
    return (await this.original(await this.visible(id, viewerId))).id;
  }

  /**
   * Removes the account's reblog of `originalId`, if any. A peer's Undo of its own Announce comes
   * here directly: the reblog is theirs to remove even if they may no longer see the original.
   */
  async removeReblog(accountId: string, originalId: string): Promise<void> {
    const reblog = await this.repo.reblogBy(accountId, originalId);
    if (!reblog) return;
    await this.delete(accountId, reblog.id);
    this.ctx.events.emit('reblog.removed', { accountId, statusId: originalId, reblogId: reblog.id });
  }

  async bookmark(viewerId: string, id: string, on: boolean): Promise<string> {
    const target = await this.original(await this.visible(id, viewerId));
    await this.ctx.db.transaction((trx) =>
      on
        ? this.repo.addAction(trx, 'bookmarks', viewerId, target.id)
        : this.repo.removeAction(trx, 'bookmarks', viewerId, target.id),
    );
    return target.id;
  }

  async pin(viewerId: string, id: string, on: boolean): Promise<void> {
    const row = await this.visible(id, viewerId);
    if (row.account_id !== viewerId || row.reblog_of_id)
      throw unprocessable('Validation failed: Status is not allowed to be pinned');
    if (on && row.visibility === 'direct')
      throw unprocessable('Validation failed: Posts that are only visible to mentioned users cannot be pinned');
    if (on) {
      if ((await this.repo.countPins(viewerId)) >= MAX_PINS)
        throw unprocessable(`Validation failed: You have already pinned the maximum number of posts`);
      await this.ctx.db.transaction((trx) => this.repo.addAction(trx, 'status_pins', viewerId, id));
    } else {
      await this.ctx.db.transaction((trx) => this.repo.removeAction(trx, 'status_pins', viewerId, id));
    }
  }

  /** A reblog has no conversation of its own: 422, as for a status without one. */
  async muteConversation(viewerId: string, id: string, on: boolean): Promise<void> {
    const row = await this.visible(id, viewerId);
    if (row.reblog_of_id || !row.conversation_id)
      throw unprocessable('Validation failed: Status has no conversation to mute');
    await this.repo.muteConversation(viewerId, row.conversation_id, on);
  }

  private async original(row: StatusRow): Promise<StatusRow> {
    if (!row.reblog_of_id) return row;
    const original = await this.repo.byId(row.reblog_of_id);
    if (!original || original.deleted_at) throw notFound();
    return original;
  }

  /**
   * A status's thread as the viewer may see it (GET /api/v1/statuses/:id/context): the ids above
   * it, the thread's start first, and below it depth first with the authors' replies to themselves
   * brought to the front. 404 when the status itself is not visible.
   */
  async context(id: string, viewerId: string | null): Promise<{ ancestors: string[]; descendants: string[] }> {
    const row = await this.visible(id, viewerId);
    const limits = viewerId ? SIGNED_IN_THREAD : ANONYMOUS_THREAD;
    const [ancestors, descendants] = await Promise.all([
      row.in_reply_to_id ? this.thread.ancestorIds(row.id, viewerId, limits.ancestors) : [],
      this.thread.descendants(row.id, viewerId, limits),
    ]);
    return { ancestors, descendants: selfRepliesFirst(descendants).map((status) => status.id) };
  }
}

/** Mastodon's promote_by!: replies an author made to themselves move ahead of the others, in order. */
function selfRepliesFirst(statuses: readonly Descendant[]): Descendant[] {
  const self = (status: Descendant) => status.in_reply_to_account_id === status.account_id;
  return [...statuses.filter(self), ...statuses.filter((status) => !self(status))];
}
