/**
 * Thread SQL for a status's context: the replies it answers (ancestors) and the replies under it
 * (descendants, depth first as Mastodon orders them). The walk goes through statuses the viewer
 * may not see (deleted, private, from blocked or muted accounts) and leaves only those out, so a
 * reply under a hidden one still shows, as in Mastodon.
 */
import type { SocialContext } from '../context.js';
import { visibleBy } from './visibility.js';
import { engineSql } from '../../store/engine-sql.js';

export interface ThreadLimits {
  ancestors: number;
  descendants: number;
  /** Deepest reply level walked below the status; null for no limit beyond the walk's own bound. */
  depth: number | null;
}

export interface Descendant {
  id: string;
  account_id: string;
  in_reply_to_account_id: string | null;
}

/** Bounds any walk, so a reply cycle in federated data cannot run on. */
const WALK_BOUND = 4096;

/**
 * Whether the viewer (?2, null when anonymous) may see status `s` in a thread: Mastodon's
 * StatusFilter and StatusPolicy#show?. One's own statuses always; otherwise not deleted, author
 * not suspended, visible by its visibility (statuses/visibility.ts), no block either way, not
 * muted, not silenced or domain-blocked unless followed.
 */
const VISIBLE = `s.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = s.account_id AND a.suspended_at IS NOT NULL)
  AND (coalesce(s.account_id = ?2, FALSE) OR (
    ${visibleBy('?2')}
    AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = ?2 AND b.target_account_id = s.account_id) OR (b.account_id = s.account_id AND b.target_account_id = ?2))
    AND NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.account_id = ?2 AND mu.target_account_id = s.account_id)
    AND (EXISTS (SELECT 1 FROM follows f WHERE f.account_id = ?2 AND f.target_account_id = s.account_id)
      OR NOT EXISTS (SELECT 1 FROM accounts a LEFT JOIN account_domain_blocks d ON d.account_id = ?2 AND d.domain = lower(a.domain)
                      WHERE a.id = s.account_id AND (a.silenced_at IS NOT NULL OR d.domain IS NOT NULL)))))`;

export class ThreadRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** Ids of the statuses above `statusId` that the viewer may see, the thread's start first. */
  async ancestorIds(statusId: string, viewerId: string | null, limit: number): Promise<string[]> {
    const rows = await this.ctx.reader.all<{ id: string }>(
      `
      WITH RECURSIVE up(id, parent, depth) AS (
        SELECT s.id, s.in_reply_to_id, 1 FROM statuses s WHERE s.id = (SELECT in_reply_to_id FROM statuses WHERE id = ?1)
        UNION ALL
        SELECT s.id, s.in_reply_to_id, up.depth + 1 FROM up JOIN statuses s ON s.id = up.parent WHERE up.depth < ?3
      )
      SELECT CAST(s.id AS TEXT) AS id FROM up JOIN statuses s ON s.id = up.id WHERE ${VISIBLE} ORDER BY up.depth DESC`,
      [statusId, viewerId, Math.min(limit, WALK_BOUND)],
    );
    return rows.map((row) => row.id);
  }

  /**
   * The statuses below `statusId` that the viewer may see, depth first (each reply followed by
   * its own replies, siblings oldest first): the first `limit` of the walk, then filtered.
   */
  descendants(
    statusId: string,
    viewerId: string | null,
    limits: Pick<ThreadLimits, 'descendants' | 'depth'>,
  ): Promise<Descendant[]> {
    // Fixed-width ids make the text path sort as the list of ids it spells.
    return this.ctx.reader.all<Descendant>(DESCENDANTS_SQL(this.ctx.reader.engine), [
      statusId,
      viewerId,
      Math.min(limits.descendants, WALK_BOUND),
      Math.min(limits.depth ?? WALK_BOUND, WALK_BOUND),
    ]);
  }
}

const DESCENDANTS_SQL = engineSql(
  (dialect) => `
      WITH RECURSIVE down(id, path, depth) AS (
        SELECT s.id, ${dialect.zeroPadded('s.id', 20)}, 1 FROM statuses s WHERE s.in_reply_to_id = ?1
        UNION ALL
        SELECT s.id, down.path || ${dialect.zeroPadded('s.id', 20)}, down.depth + 1 FROM down JOIN statuses s ON s.in_reply_to_id = down.id WHERE down.depth < ?4
      ),
      walked AS (SELECT id, path FROM down ORDER BY path LIMIT ?3)
      SELECT CAST(s.id AS TEXT) AS id, CAST(s.account_id AS TEXT) AS account_id, CAST(s.in_reply_to_account_id AS TEXT) AS in_reply_to_account_id
        FROM walked JOIN statuses s ON s.id = walked.id WHERE ${VISIBLE} ORDER BY walked.path`,
);
