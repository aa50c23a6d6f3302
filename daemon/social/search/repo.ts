/**
 * Search SQL over the full-text indexes (FTS5 tables on SQLite, GIN-indexed vectors on PostgreSQL:
 * store/dialect.ts `textSearch`) and exact account lookups.
 */
import { dialectFor } from '../../store/dialect.js';
import type { SocialContext } from '../context.js';
import { visibleBy } from '../statuses/visibility.js';

export interface StatusSearch {
  /** The query's terms (search/query.ts `searchTerms`), at least one. */
  terms: readonly string[];
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
    const dialect = dialectFor(this.ctx.reader.engine);
    const search = dialect.textSearch('statuses', 's', '?1');
    return this.ctx.reader.all(
      `SELECT CAST(s.id AS TEXT) AS id FROM ${search.from}
      WHERE ${search.where} AND ${search.id} < coalesce(CAST(?2 AS BIGINT), 9223372036854775807) AND ${search.id} > coalesce(CAST(?3 AS BIGINT), 0)
        AND s.deleted_at IS NULL AND (s.visibility IN ('public', 'unlisted') OR s.account_id = ?4) AND ${visibleBy('?4')}
        AND (CAST(?5 AS BIGINT) IS NULL OR s.account_id = ?5)
        AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = ?4 AND b.target_account_id = s.account_id) OR (b.account_id = s.account_id AND b.target_account_id = ?4))
      ORDER BY ${search.id} DESC LIMIT ?6 OFFSET ?7`,
      [dialect.textQuery(q.terms), q.maxId ?? null, q.minId ?? null, q.viewerId, q.authorId, q.limit, q.offset],
    );
  }

  /** Accounts matching `terms`, exact username first, then the best match. */
  accounts(
    terms: readonly string[],
    exactUsername: string,
    limit: number,
    offset: number,
  ): Promise<Array<{ id: string }>> {
    const dialect = dialectFor(this.ctx.reader.engine);
    const search = dialect.textSearch('accounts', 'a', '?1');
    return this.ctx.reader.all(
      `SELECT CAST(a.id AS TEXT) AS id FROM ${search.from}
      WHERE ${search.where} AND a.suspended_at IS NULL
      ORDER BY lower(a.username) = lower(?2) DESC, ${search.rank}, a.id LIMIT ?3 OFFSET ?4`,
      // PostgreSQL takes no NUL in text; no username holds a control character.
      [dialect.textQuery(terms), exactUsername.replace(/\p{Cc}/gu, ''), limit, offset],
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
