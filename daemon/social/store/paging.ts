/** Cursor paging in SQL (max_id / since_id / min_id), shared by the repos of paged lists. */

const MAX_BIGINT = '9223372036854775807';

export interface PageQuery {
  maxId?: string;
  sinceId?: string;
  minId?: string;
  limit: number;
}

/** The parts of a paged query: `select` columns `from` tables `where` filters, paged on the `cursor` column. */
export interface CursorQuery {
  select: string;
  from: string;
  where: string;
  cursor: string;
}

/**
 * A cursor page as SQL: the rows after max_id / since_id / min_id on `cursor`, newest first (with
 * min_id the oldest after it, still answered newest first). `params` are those the query's own
 * parts use (?1…); the page's follow them. A limit of -1 means every row. It orders by its own
 * `page_cursor` alias: in ORDER BY a result alias wins over a column, and `select` may render the
 * cursor column as text under the column's name (text order puts '9' after '10'). One text for
 * both engines: PostgreSQL wants the subquery named and the lower bound a bigint, as ids are.
 */
export function cursorPageSql(
  query: CursorQuery,
  params: Array<string | number | null>,
  page: PageQuery,
): { sql: string; params: Array<string | number | null> } {
  const n = params.length;
  const ascending = page.minId !== undefined;
  return {
    sql: `SELECT * FROM (SELECT ${query.select}, ${query.cursor} AS page_cursor FROM ${query.from}
      WHERE ${query.where} AND ${query.cursor} < coalesce(?${n + 1}, 9223372036854775807) AND ${query.cursor} > coalesce(?${n + 2}, CAST(0 AS BIGINT))
      ORDER BY page_cursor ${ascending ? 'ASC' : 'DESC'} LIMIT ?${n + 3}) AS page ORDER BY page_cursor DESC`,
    // Every row as the largest limit (PostgreSQL refuses SQLite's negative one).
    params: [
      ...params,
      page.maxId ?? null,
      (ascending ? page.minId : page.sinceId) ?? null,
      page.limit < 0 ? MAX_BIGINT : page.limit,
    ],
  };
}
