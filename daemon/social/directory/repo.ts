/**
 * Finding people: the profile directory (discoverable accounts, by recent activity or newest) and
 * follow suggestions (friends of friends first, then the box's own most followed accounts). Never
 * suspended, limited, unapproved or moved accounts; never ones the viewer blocks, mutes or is
 * blocked by.
 */
import type { SocialContext } from '../context.js';

/** Who may be listed at all, for viewer ?1 (NULL: no viewer). */
const LISTABLE = `a.discoverable AND a.suspended_at IS NULL AND a.silenced_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM users u WHERE u.account_id = a.id AND (NOT u.approved OR u.disabled))
  AND NOT EXISTS (SELECT 1 FROM federation_actors fa WHERE fa.account_id = a.id AND fa.moved_to_account_id IS NOT NULL)
  AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = ?1 AND b.target_account_id = a.id) OR (b.account_id = a.id AND b.target_account_id = ?1))
  AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = ?1 AND m.target_account_id = a.id)`;

export type DirectoryOrder = 'active' | 'new';

export interface Suggestion {
  id: string;
  source: 'friends_of_friends' | 'most_followed';
}

export class DirectoryRepo {
  constructor(private readonly ctx: SocialContext) {}

  async directory(
    viewerId: string | null,
    options: { order: DirectoryOrder; local: boolean; offset: number; limit: number },
  ): Promise<string[]> {
    const order = options.order === 'new' ? 'a.id DESC' : `coalesce(a.last_status_at, '') DESC, a.id DESC`;
    const rows = await this.ctx.reader.all<{ id: string }>(
      `SELECT CAST(a.id AS TEXT) AS id FROM accounts a
      WHERE ${LISTABLE} AND (?2 = 0 OR a.domain IS NULL) ORDER BY ${order} LIMIT ?3 OFFSET ?4`,
      [viewerId, options.local ? 1 : 0, options.limit, options.offset],
    );
    return rows.map((row) => row.id);
  }

  /** Accounts the viewer does not follow (nor asked to), nor dismissed: friends of friends, then the most followed local ones. */
  suggestions(viewerId: string, limit: number): Promise<Suggestion[]> {
    const candidate = `a.id != ?1 AND ${LISTABLE}
      AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = ?1 AND f.target_account_id = a.id)
      AND NOT EXISTS (SELECT 1 FROM follow_requests r WHERE r.account_id = ?1 AND r.target_account_id = a.id)
      AND NOT EXISTS (SELECT 1 FROM account_suggestion_dismissals d WHERE d.account_id = ?1 AND d.target_account_id = a.id)`;
    // An account both a friend of friends and much followed is suggested once, for the first reason.
    return this.ctx.reader.all<Suggestion>(
      `SELECT CAST(n AS TEXT) AS id, source FROM (
        SELECT n, source, rank, weight, row_number() OVER (PARTITION BY n ORDER BY rank) AS reason FROM (
          SELECT a.id AS n, 'friends_of_friends' AS source, 0 AS rank, count(*) AS weight
            FROM follows mine JOIN follows theirs ON theirs.account_id = mine.target_account_id JOIN accounts a ON a.id = theirs.target_account_id
            WHERE mine.account_id = ?1 AND ${candidate} GROUP BY a.id
          UNION ALL
          SELECT a.id, 'most_followed', 1, a.followers_count FROM accounts a WHERE a.domain IS NULL AND ${candidate}) AS reasons
        ) AS ranked
      WHERE reason = 1 ORDER BY rank, weight DESC, n DESC LIMIT ?2`,
      [viewerId, limit],
    );
  }

  async dismiss(viewerId: string, targetId: string): Promise<void> {
    // An unknown account is simply never suggested: nothing to store.
    await this.ctx.db.raw(
      `INSERT INTO account_suggestion_dismissals (account_id, target_account_id, created_at)
      SELECT CAST(? AS BIGINT), id, ? FROM accounts WHERE id = ? ON CONFLICT DO NOTHING`,
      [viewerId, new Date(this.ctx.now()).toISOString(), targetId],
    );
  }
}
