/**
 * Timeline SQL: home (the viewer and the accounts they follow), lists, public (local / remote /
 * only_media) and hashtag (any / all / none). Newest first, Mastodon's max/since/min cursors; ids
 * leave SQL as text. Accounts the viewer blocks or mutes, or who block the viewer, are left out.
 */
import type { SocialContext } from '../context.js';
import type { PageQuery } from '../store/paging.js';
import { visibleBy } from '../statuses/visibility.js';
import { dialectFor, idList } from '../../store/dialect.js';

export interface PublicOptions {
  local: boolean;
  remote: boolean;
  onlyMedia: boolean;
}
export interface TagOptions extends PublicOptions {
  any: number[];
  all: number[];
  none: number[];
}

const HIDDEN = (viewerParam: string) => `
  AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = ${viewerParam} AND b.target_account_id = s.account_id) OR (b.account_id = s.account_id AND b.target_account_id = ${viewerParam}))
  AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = ${viewerParam} AND m.target_account_id = s.account_id)`;

/**
 * Whether list `list` of `owner` (SQL expressions) shows status `s`: what its followed members
 * post and boost, as the home feed would show it; replies to others only as the list's replies
 * policy allows (to the owner always; `list`: to members; `followed`: to accounts the owner
 * follows; `none`: no more). The list timeline and the `list` stream both ask this.
 */
export function listShows(owner: string, list: string): string {
  const policy = `(SELECT pl.replies_policy FROM lists pl WHERE pl.id = ${list})`;
  return `s.account_id IN (SELECT la.account_id FROM list_accounts la WHERE la.list_id = ${list}
        AND (la.account_id = ${owner} OR EXISTS (SELECT 1 FROM follows f WHERE f.account_id = ${owner} AND f.target_account_id = la.account_id)))
      AND (s.in_reply_to_id IS NULL OR s.in_reply_to_account_id IN (s.account_id, ${owner})
        OR (${policy} = 'followed' AND EXISTS (SELECT 1 FROM follows rf WHERE rf.account_id = ${owner} AND rf.target_account_id = s.in_reply_to_account_id))
        OR (${policy} = 'list' AND EXISTS (SELECT 1 FROM list_accounts rl WHERE rl.list_id = ${list} AND rl.account_id = s.in_reply_to_account_id)))
      AND (s.reblog_of_id IS NULL OR s.account_id = ${owner} OR EXISTS (SELECT 1 FROM follows f WHERE f.account_id = ${owner} AND f.target_account_id = s.account_id AND f.show_reblogs))
      AND (s.reblog_of_id IS NULL OR NOT EXISTS (SELECT 1 FROM statuses o JOIN blocks b ON b.account_id = ${owner} AND b.target_account_id = o.account_id WHERE o.id = s.reblog_of_id))
      AND ${visibleBy(owner)}
      ${HIDDEN(owner)}`;
}

export class TimelinesRepo {
  constructor(private readonly ctx: SocialContext) {}

  /**
   * Wraps a WHERE clause over `statuses s` into a cursor page (params ?1 max, ?2 since/min, ?3
   * limit); `cursor` is the column walked in order (the status id, or an index's copy of it).
   */
  private page(
    from: string,
    where: string,
    page: PageQuery,
    extra: Array<string | number | null>,
    cursor = 's.id',
  ): Promise<Array<{ id: string }>> {
    const ascending = page.minId !== undefined;
    return this.ctx.reader.all(
      `SELECT id FROM (SELECT CAST(s.id AS TEXT) AS id, s.id AS n FROM ${from}
        WHERE ${cursor} < coalesce(?1, 9223372036854775807) AND ${cursor} > coalesce(?2, CAST(0 AS BIGINT)) AND s.deleted_at IS NULL AND ${where}
        ORDER BY ${cursor} ${ascending ? 'ASC' : 'DESC'} LIMIT ?3) AS p ORDER BY n DESC`,
      [page.maxId ?? null, (ascending ? page.minId : page.sinceId) ?? null, page.limit, ...extra],
    );
  }

  /**
   * The viewer's materialised feed (home_feed), with deletions, mutes, blocks and show_reblogs
   * applied, without the members of the viewer's exclusive lists, and only what the viewer may
   * see (a peer's direct status to someone else reaches every follower's feed row, not its page).
   */
  home(viewerId: string, page: PageQuery): Promise<Array<{ id: string }>> {
    const ascending = page.minId !== undefined;
    return this.ctx.reader.all(
      `SELECT id FROM (SELECT CAST(h.status_id AS TEXT) AS id, h.status_id AS n FROM home_feed h JOIN statuses s ON s.id = h.status_id
        WHERE h.account_id = ?4 AND h.status_id < coalesce(?1, 9223372036854775807) AND h.status_id > coalesce(?2, CAST(0 AS BIGINT)) AND s.deleted_at IS NULL
          AND (s.account_id = ?4 OR s.reblog_of_id IS NULL OR EXISTS (SELECT 1 FROM follows f WHERE f.account_id = ?4 AND f.target_account_id = s.account_id AND f.show_reblogs))
          AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = ?4 AND m.target_account_id = s.account_id)
          AND (s.reblog_of_id IS NULL OR NOT EXISTS (SELECT 1 FROM statuses o JOIN blocks b ON b.account_id = ?4 AND b.target_account_id = o.account_id WHERE o.id = s.reblog_of_id))
          AND (s.account_id = ?4 OR NOT EXISTS (SELECT 1 FROM list_accounts la JOIN lists l ON l.id = la.list_id
                                                 WHERE la.account_id = s.account_id AND l.account_id = ?4 AND l.exclusive))
          AND ${visibleBy('?4')}
        ORDER BY h.status_id ${ascending ? 'ASC' : 'DESC'} LIMIT ?3) AS p ORDER BY n DESC`,
      [page.maxId ?? null, (ascending ? page.minId : page.sinceId) ?? null, page.limit, viewerId],
    );
  }

  /** A list's feed (?4 its owner, ?5 the list): see listShows. */
  list(ownerId: string, listId: string, page: PageQuery): Promise<Array<{ id: string }>> {
    return this.page('statuses s', listShows('?4', '?5'), page, [ownerId, listId]);
  }

  /** Public, original statuses; replies to others only when `replies` (hashtag timelines). */
  private publicWhere(options: PublicOptions, viewerId: string | null, replies = false): string {
    let where = `s.visibility = 'public' AND s.reblog_of_id IS NULL`;
    if (!replies) where += ' AND (s.in_reply_to_id IS NULL OR s.in_reply_to_account_id = s.account_id)';
    if (options.local) where += ' AND s.local';
    else if (options.remote) where += ' AND NOT s.local';
    if (options.onlyMedia) where += ' AND EXISTS (SELECT 1 FROM media_attachments ma WHERE ma.status_id = s.id)';
    where +=
      ' AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.account_id AND (a.suspended_at IS NOT NULL OR a.silenced_at IS NOT NULL))';
    if (viewerId) where += HIDDEN('?4');
    return where;
  }

  public(options: PublicOptions, viewerId: string | null, page: PageQuery): Promise<Array<{ id: string }>> {
    return this.page('statuses s', this.publicWhere(options, viewerId), page, viewerId ? [viewerId] : []);
  }

  /** One tag walks its index (tag_id, status_id) in order; several `any` tags test each status. */
  tag(options: TagOptions, viewerId: string | null, page: PageQuery): Promise<Array<{ id: string }>> {
    let where = this.publicWhere(options, viewerId, true);
    // The viewer is ?4 when there is one (publicWhere); the tag lists follow. Every parameter is
    // used: PostgreSQL cannot type one the query never mentions.
    const args: Array<string | number | null> = viewerId ? [viewerId] : [];
    const dialect = dialectFor(this.ctx.reader.engine);
    const tagsIn = (tagIds: readonly number[]) => {
      args.push(idList(tagIds));
      return `(SELECT CAST(x.value AS BIGINT) FROM ${dialect.idsTableOf(`?${3 + args.length}`, 'x')})`;
    };
    for (const tagId of options.all)
      where += ` AND EXISTS (SELECT 1 FROM status_tags st WHERE st.status_id = s.id AND st.tag_id = ${Number(tagId)})`;
    if (options.none.length > 0)
      where += ` AND NOT EXISTS (SELECT 1 FROM status_tags st WHERE st.status_id = s.id AND st.tag_id IN ${tagsIn(options.none)})`;
    if (options.any.length === 1) {
      return this.page(
        'status_tags t JOIN statuses s ON s.id = t.status_id',
        `t.tag_id = ${Number(options.any[0])} AND ${where}`,
        page,
        args,
        't.status_id',
      );
    }
    where += ` AND EXISTS (SELECT 1 FROM status_tags st WHERE st.status_id = s.id AND st.tag_id IN ${tagsIn(options.any)})`;
    return this.page('statuses s', where, page, args);
  }
}
