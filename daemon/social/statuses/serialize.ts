/**
 * Status JSON (Mastodon 4.5 REST::StatusSerializer), rendered in batches: one query for the
 * statuses (the viewer's flags always, rows only where their render version moved), one for the
 * reblogged originals, one for every account.
 */
import type { SocialContext } from '../context.js';
import type { AccountJson } from '../accounts/serialize.js';
import type { RenderCache } from '../render/cache.js';
import { VIEWER_FLAG, type RenderRow } from './repo.js';
import { renderEmojis } from './emojis.js';

export type StatusJson = Record<string, unknown> & { id: string };

/**
 * Fills fields other resources own (media_attachments, tags, filtered) on every status rendered
 * anew, reblogged ones included. What a decorator adds must follow from the status's render
 * version, or from the viewer through a ViewerKey.
 */
export type StatusDecorator = (
  rendered: ReadonlyArray<{ row: Readonly<RenderRow>; json: StatusJson }>,
  viewerId: string | null,
) => Promise<void>;

/** A summary of what a viewer-dependent decorator renders from (a viewer's filters); part of every status's cache key. */
export type ViewerKey = (viewerId: string) => Promise<string>;

export class StatusRenderer {
  /** `cache`: what stays rendered between requests; `decorators`: media, tags, filters and polls fill their fields; `viewerKeys`: filters'. */
  constructor(
    private readonly ctx: SocialContext,
    private readonly cache: RenderCache,
    private readonly decorators: readonly StatusDecorator[],
    private readonly viewerKeys: readonly ViewerKey[],
  ) {}

  /** Account JSON by id (frozen: rendered accounts are shared between responses). */
  async accountsById(ids: readonly string[]): Promise<Map<string, AccountJson>> {
    const rendered = await this.cache.accounts.byIds([...new Set(ids)]);
    return new Map([...rendered].map(([id, entry]) => [id, entry.json]));
  }

  /**
   * Renders statuses by id. Left out: missing ones, deleted ones unless `includeDeleted`, and
   * those the viewer may not see (statuses/visibility.ts), reblogs of such included, so no path
   * that renders can show a status to someone the rule hides it from.
   */
  async render(
    ids: readonly string[],
    viewerId: string | null,
    options: { includeDeleted?: boolean; withSource?: boolean } = {},
  ): Promise<Map<string, StatusJson>> {
    return (await this.renderWithAccounts(ids, viewerId, [], options)).statuses;
  }

  /**
   * Statuses and the accounts `accountIds` (notification senders) with their authors and mentions.
   * The accounts the status rows already held name are asked for in the same statement as the rows
   * themselves, so an unchanged page costs one round trip instead of one after the other; only
   * accounts a changed or new row brings are asked for after it.
   */
  async renderWithAccounts(
    ids: readonly string[],
    viewerId: string | null,
    accountIds: readonly string[],
    options: { includeDeleted?: boolean; withSource?: boolean } = {},
  ): Promise<{ statuses: Map<string, StatusJson>; accounts: Map<string, AccountJson> }> {
    // Rendered statuses are kept only for the ordinary rendering (not deleted ones, not with source).
    const cacheable = !options.includeDeleted && !options.withSource;
    const viewerKey =
      cacheable && viewerId !== null
        ? Promise.all(this.viewerKeys.map((key) => key(viewerId))).then((keys) => keys.join('|'))
        : Promise.resolve('anonymous');
    const uniqueIds = [...new Set(ids)];
    const asked = new Set([...accountIds, ...this.cache.statusRows.heldAccountIds(uniqueIds)]);
    // Awaited below; if loading fails first, its own failure must not go unhandled.
    viewerKey.catch(() => undefined);
    const { statuses: loaded, accounts: first } = await this.cache.statusesAndAccounts(uniqueIds, viewerId, [...asked]);
    const have = new Set(loaded.map(({ row }) => row.id));
    const originalIds = [
      ...new Set(loaded.map(({ row }) => row.reblog_of_id).filter((id): id is string => id !== null && !have.has(id))),
    ];
    const all = [...loaded, ...(await this.cache.statusRows.load(originalIds, viewerId))];
    const byId = new Map(all.map((status) => [status.row.id, status]));
    const late = [
      ...new Set(all.flatMap(({ row }) => [row.account_id, ...row.mention_ids]).filter((id) => !asked.has(id))),
    ];
    const [rest, viewerPart] = await Promise.all([this.cache.accounts.byIds(late), viewerKey]);
    const rendered = rest.size === 0 ? first : new Map([...first, ...rest]);
    const accounts = new Map([...rendered].map(([id, entry]) => [id, entry.json]));

    // A poll's `expired` follows the clock: the time is part of what a rendering is kept by.
    const now = this.ctx.now();
    const built: Array<{ row: Readonly<RenderRow>; json: StatusJson }> = [];
    const fresh: Array<{ key: string; json: StatusJson }> = [];
    const one = (row: Readonly<RenderRow>): { json: StatusJson; key: string } | null => {
      const author = rendered.get(row.account_id);
      if (!author) return null;
      const account = author.json;
      let reblog: { json: StatusJson; key: string } | null = null;
      if (row.reblog_of_id) {
        const original = byId.get(row.reblog_of_id);
        reblog = original?.visible && !original.row.deleted_at ? one(original.row) : null;
        if (!reblog) return null;
      }
      const { version, flags } = byId.get(row.id)!;
      const key = [
        row.id,
        version,
        flags,
        viewerId === null ? '' : viewerId === row.account_id ? 'own' : 'other',
        author.version,
        row.mention_ids.map((id) => rendered.get(id)?.version ?? '-').join(','),
        reblog?.key ?? '',
        viewerPart,
        pollState(row.poll_ends, now),
      ].join(' ');
      const kept = cacheable ? this.cache.statuses.get(key) : undefined;
      if (kept) return { json: kept, key };
      // One fixed shape for every status, so V8 keeps these objects fast for JSON.stringify (spreads
      // and deletes make dictionaries). A field a status lacks is undefined, which JSON leaves out.
      const viewer = viewerId !== null;
      const flag = (bit: number) => (viewer ? (flags & bit) !== 0 : undefined);
      const json: StatusJson = {
        id: row.id,
        created_at: row.created_at,
        in_reply_to_id: row.in_reply_to_id,
        in_reply_to_account_id: row.in_reply_to_account_id,
        sensitive: Boolean(row.sensitive),
        spoiler_text: row.spoiler_text,
        visibility: row.visibility,
        language: row.language,
        uri: row.uri,
        url: row.url,
        replies_count: row.replies_count,
        reblogs_count: row.reblogs_count,
        favourites_count: row.favourites_count,
        quotes_count: 0,
        edited_at: row.edited_at,
        favourited: flag(VIEWER_FLAG.favourited),
        reblogged: flag(VIEWER_FLAG.reblogged),
        muted: flag(VIEWER_FLAG.muted),
        bookmarked: flag(VIEWER_FLAG.bookmarked),
        // Only the author's own pinnable statuses carry `pinned`.
        pinned: row.account_id === viewerId && !row.reblog_of_id ? flag(VIEWER_FLAG.pinned) : undefined,
        filtered: viewer ? [] : undefined,
        content: reblog ? '' : row.content,
        reblog: reblog?.json ?? null,
        application: row.app_name !== null ? { name: row.app_name, website: row.app_website || null } : undefined,
        account,
        media_attachments: [],
        mentions: row.mention_ids
          .map((id) => accounts.get(id))
          .filter((a): a is AccountJson => Boolean(a))
          .map((a) => ({ id: a.id, username: a.username, url: a.url, acct: a.acct })),
        tags: [],
        emojis: renderEmojis(row.emojis),
        quote: null,
        card: null,
        poll: null,
        quote_approval: { automatic: ['public'], manual: [], current_user: 'automatic' },
        text: options.withSource ? row.text : undefined,
      };
      built.push({ row, json });
      fresh.push({ key, json });
      return { json, key };
    };

    const out = new Map<string, StatusJson>();
    for (const { row, visible } of loaded) {
      if (!visible || (row.deleted_at && !options.includeDeleted)) continue;
      const status = one(row);
      if (status) out.set(row.id, status.json);
    }
    // Each decorator fills its own fields: they may run side by side.
    if (built.length > 0) await Promise.all(this.decorators.map((decorate) => decorate(built, viewerId)));
    // Kept in place (marked and frozen): originals were built first, so each is final before its reblog.
    if (cacheable) for (const { key, json } of fresh) this.cache.statuses.keep(key, json);
    return { statuses: out, accounts };
  }

  async renderOne(
    id: string,
    viewerId: string | null,
    options?: { includeDeleted?: boolean; withSource?: boolean },
  ): Promise<StatusJson | undefined> {
    return (await this.render([id], viewerId, options)).get(id);
  }
}

/** Whether a status's poll has ended at `now` ('' without a poll). */
function pollState(ends: string | null, now: number): string {
  if (ends === null) return '';
  return ends !== '' && Date.parse(ends) <= now ? 'poll-ended' : 'poll-open';
}
