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

/** The most matches one window of a status search holds (the first holds the page and those skipped before it). */
const LARGEST_WINDOW = 400;
/** How many of the newest statuses (below a window's start) a window looks among first. */
const RECENT_SPAN = 5000;
/**
 * How long the first window's span bound is used again: statuses posted meanwhile only widen the
 * span a little, and any bound splits the matches into newer and older ones alike.
 */
const SPAN_BOUND_REUSE_MS = 10_000;
/** Above every id: a window with no `before` starts here. */
const MAX_ID = 9223372036854775807n;

interface WindowRow {
  id: string;
  shown: number | boolean;
}

export class SearchRepo {
  /** The id below the `recentSpan` newest statuses (0 with fewer), and when it was read. */
  private newestSpanBound: { id: string; at: number } | null = null;

  /** `recentSpan`: how many of the newest statuses a window looks among first (smaller in tests). */
  constructor(
    private readonly ctx: SocialContext,
    private readonly recentSpan = RECENT_SPAN,
  ) {}

  /**
   * Newest matching statuses searched (public and unlisted ones, and the viewer's own) that the
   * viewer may see (statuses/visibility.ts), from no one either side of a block. The index gives
   * the newest matches a window at a time and the rule is asked of those alone: a word in many
   * statuses stops after a page of them instead of asking the rule of every match. A window too
   * poor in visible ones is followed by the next, older one, each twice the size of the last.
   */
  async statuses(q: StatusSearch): Promise<Array<{ id: string }>> {
    let skip = q.offset;
    const found: Array<{ id: string }> = [];
    let before = q.maxId ?? null;
    let size = Math.min(q.offset + q.limit, LARGEST_WINDOW);
    for (;;) {
      const window = await this.statusWindow(q, before, size);
      for (const candidate of window) {
        if (!candidate.shown) continue;
        if (skip > 0) skip -= 1;
        else if (found.length < q.limit) found.push({ id: candidate.id });
      }
      if (found.length === q.limit || window.length < size) return found;
      before = window[window.length - 1].id;
      size = Math.min(size * 2, LARGEST_WINDOW);
    }
  }

  /**
   * The `size` newest matches older than `before`, newest first, each with whether it is shown.
   * From an index that keeps them in id order, at once; otherwise first among the newest statuses
   * (a walk there is short), then, if too few, among the older ones through the index alone (a
   * word frequent long ago may be absent from the newest rows).
   */
  private async statusWindow(q: StatusSearch, before: string | null, size: number): Promise<WindowRow[]> {
    if (dialectFor(this.ctx.reader.engine).matchesInIdOrder) return this.statusMatches(q, before, size, 'all', null);
    // The first window's bound is kept a while; a later window's is found in its own statements.
    const bound = before === null ? await this.newestBound() : null;
    const recent = await this.statusMatches(q, before, size, 'recent', bound);
    if (recent.length === size) return recent;
    return [...recent, ...(await this.statusMatches(q, before, size - recent.length, 'older', bound))];
  }

  /** The id below the `recentSpan` newest statuses, read again once it is SPAN_BOUND_REUSE_MS old. */
  private async newestBound(): Promise<string> {
    const now = this.ctx.now();
    const kept = this.newestSpanBound;
    if (kept && now - kept.at < SPAN_BOUND_REUSE_MS && now >= kept.at) return kept.id;
    const row = await this.ctx.reader.get<{ id: string }>(
      `SELECT CAST(${this.spanEndBelow(String(MAX_ID))} AS TEXT) AS id`,
    );
    this.newestSpanBound = { id: row?.id ?? '0', at: now };
    return this.newestSpanBound.id;
  }

  /** SQL for the id below the `recentSpan` newest statuses under `below` (0 with fewer). */
  private spanEndBelow(below: string): string {
    return `coalesce((SELECT r.id FROM statuses r WHERE r.id < ${below} ORDER BY r.id DESC LIMIT 1 OFFSET ${this.recentSpan - 1}), 0)`;
  }

  /**
   * `statusWindow`'s matches: all, those among the `recentSpan` statuses below `before`, or those
   * older; the span ends at `bound` where given, else where the statement finds it.
   */
  private statusMatches(
    q: StatusSearch,
    before: string | null,
    size: number,
    part: 'all' | 'recent' | 'older',
    bound: string | null,
  ): Promise<WindowRow[]> {
    const dialect = dialectFor(this.ctx.reader.engine);
    const search = dialect.textSearch('statuses', 'm', '?1');
    const below = `coalesce(CAST(?2 AS BIGINT), ${MAX_ID})`;
    const spanEnd = bound === null ? this.spanEndBelow(below) : 'CAST(?7 AS BIGINT)';
    const id = part === 'older' ? dialect.unwalkedId(search.id) : search.id;
    const span = { all: '', recent: `AND ${id} > ${spanEnd}`, older: `AND ${id} <= ${spanEnd}` }[part];
    // Planned per call: the best way to the newest matches depends on how many rows hold the words.
    return this.ctx.reader.allPlannedPerCall(
      `SELECT CAST(c.id AS TEXT) AS id, (${visibleBy('?4')}
        AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = ?4 AND b.target_account_id = s.account_id) OR (b.account_id = s.account_id AND b.target_account_id = ?4))) AS shown
      FROM (SELECT ${search.id} AS id FROM ${search.from}
        WHERE ${search.where} AND ${id} < ${below} ${span}
          AND ${search.id} > coalesce(CAST(?3 AS BIGINT), 0)
          AND m.deleted_at IS NULL AND (m.visibility IN ('public', 'unlisted') OR m.account_id = ?4)
          AND (CAST(?5 AS BIGINT) IS NULL OR m.account_id = ?5)
        ORDER BY ${id} DESC LIMIT ?6) c
      JOIN statuses s ON s.id = c.id
      ORDER BY c.id DESC`,
      [
        dialect.textQuery(q.terms),
        before,
        q.minId ?? null,
        q.viewerId,
        q.authorId,
        size,
        ...(bound === null ? [] : [bound]),
      ],
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
