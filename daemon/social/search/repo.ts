/** Search SQL over the FTS5 indexes (statuses_fts, accounts_fts) and the tags table. */
import type { SocialContext } from '../context.js';
import { visibleBy } from '../statuses/visibility.js';

export interface StatusSearch {
  match: string;
  viewerId: string;
  authorId: string | null;
  maxId?: string;
  minId?: string;
  limit: number;
  offset: number;
}

export class SearchRepo {
  constructor(private readonly ctx: SocialContext) {}

  /**
   * Newest matching statuses searched (public and unlisted ones, and the viewer's own) that the
   * viewer may see (statuses/visibility.ts), from no one either side of a block.
   */
  statuses(q: StatusSearch): Promise<Array<{ id: string }>> {
    return this.ctx.reader.all(
      `SELECT CAST(s.id AS TEXT) AS id FROM statuses_fts f JOIN statuses s ON s.id = f.rowid
      WHERE statuses_fts MATCH ?1 AND f.rowid < coalesce(?2, 9223372036854775807) AND f.rowid > coalesce(?3, 0)
        AND s.deleted_at IS NULL AND (s.visibility IN ('public', 'unlisted') OR s.account_id = ?4) AND ${visibleBy('?4')}
        AND (?5 IS NULL OR s.account_id = ?5)
        AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = ?4 AND b.target_account_id = s.account_id) OR (b.account_id = s.account_id AND b.target_account_id = ?4))
      ORDER BY f.rowid DESC LIMIT ?6 OFFSET ?7`,
      [q.match, q.maxId ?? null, q.minId ?? null, q.viewerId, q.authorId, q.limit, q.offset],
    );
  }

  /** Accounts by FTS match, best rank first, exact username first. */
  accounts(match: string, exactUsername: string, limit: number, offset: number): Promise<Array<{ id: string }>> {
    return this.ctx.reader.all(
      `SELECT CAST(a.id AS TEXT) AS id FROM accounts_fts f JOIN accounts a ON a.id = f.rowid
      WHERE accounts_fts MATCH ?1 AND a.suspended_at IS NULL
      ORDER BY lower(a.username) = lower(?2) DESC, f.rank LIMIT ?3 OFFSET ?4`,
      [match, exactUsername, limit, offset],
    );
  }

  /** Accounts whose username (and domain) equal the query exactly. */
  exactAccounts(username: string, domain: string | null, localDomain: string): Promise<Array<{ id: string }>> {
    const local = domain === null || domain.toLowerCase() === localDomain.toLowerCase();
    return this.ctx.reader.all(
      `SELECT CAST(id AS TEXT) AS id FROM accounts WHERE lower(username) = lower(?) AND suspended_at IS NULL
      AND ${local ? 'domain IS NULL' : 'lower(domain) = lower(?)'}`,
      local ? [username] : [username, domain],
    );
  }
}
