/**
 * The grouped page's SQL (v2 notifications) and its result. A page's groups are the first `limit`
 * distinct page keys met in id order. Most pages find them among a few times `limit` rows, so
 * where the engine scans before walking (`Dialect.scansBeforeWalking`) the page is first read from
 * one range scan of that many rows (the window: each key's first row met in it); otherwise, or when
 * the window holds neither `limit` keys nor every row of the range, the page is walked (a recursive
 * CTE that takes one index probe per group). Either way, the group aggregates
 * are bounded index lookups per group in the same statement. No query ever reads all of an
 * account's notifications.
 */
import type { Dialect } from '../../store/dialect.js';
import { SAMPLE_ACCOUNTS } from './grouping.js';
import { GROUPABLE_TYPES, sqlList } from './types.js';
import type { Filter, PageGroup } from './repo.js';

/** How the page's groups are found: from one range scan of the newest rows, or walked. */
export type PageSource = 'window' | 'walk';

/** The window's rows per row of the page's limit. */
export const WINDOW_ROWS_PER_GROUP = 3;

/** Notifications from suspended accounts are never shown (Mastodon's without_suspended). */
export const NOT_SUSPENDED = (alias: string) =>
  ` AND NOT EXISTS (SELECT 1 FROM accounts sa WHERE sa.id = ${alias}.from_account_id AND sa.suspended_at IS NOT NULL)`;

export function filterSql(alias: string, filter: Filter): string {
  let sql = NOT_SUSPENDED(alias);
  if (filter.types) sql += filter.types.length ? ` AND ${alias}.type IN (${sqlList(filter.types)})` : ' AND FALSE';
  if (!filter.includeFiltered) sql += ` AND NOT ${alias}.filtered`;
  return sql;
}

/** The page key expression: stored keys count only for the grouped types. */
export function keySql(alias: string, groupedTypes: readonly string[]): string {
  if (groupedTypes.length === GROUPABLE_TYPES.length)
    return `coalesce(${alias}.group_key, 'ungrouped-' || ${alias}.id)`;
  if (groupedTypes.length === 0) return `'ungrouped-' || ${alias}.id`;
  return `CASE WHEN ${alias}.group_key IS NOT NULL AND ${alias}.type IN (${sqlList(groupedTypes)}) THEN ${alias}.group_key ELSE 'ungrouped-' || ${alias}.id END`;
}

/** The grouped page's SQL per filter shape and source, built once each (few shapes exist), so the reader finds its prepared statement by the same string. */
const groupedPageSql = new Map<string, string>();

/** What a page's statement depends on besides its bound values. */
export interface PageShape {
  filter: Filter;
  groupedTypes: readonly string[];
  ascending: boolean;
  source: PageSource;
}

export function groupedPageSqlFor(dialect: Dialect, page: PageShape): string {
  const { filter, groupedTypes, ascending, source } = page;
  const shape = `${dialect.engine}|${source}|${ascending}|${filter.includeFiltered}|${filter.types?.join() ?? '*'}|${groupedTypes.join()}`;
  let sql = groupedPageSql.get(shape);
  if (sql === undefined) {
    if (groupedPageSql.size > 200) groupedPageSql.clear();
    sql = buildGroupedPageSql(dialect, page);
    groupedPageSql.set(shape, sql);
  }
  return sql;
}

const CARRIED = (n: string) =>
  `${n}.type, ${n}.from_account_id, ${n}.status_id, ${n}.group_key, ${n}.filtered, ${n}.created_at`;

/**
 * The window: the first `?5` rows of the range in the page's order, each key's first row among
 * them, the first `?4` of those. `complete` when they are `?4` groups or the window held every row
 * of the range: then they are the groups the walk would find, in one range scan.
 */
function windowSql(dialect: Dialect, filter: Filter, key: (alias: string) => string, order: string): string {
  return `
      win AS (SELECT n.id AS n_id, ${key('n')} AS page_key, ${CARRIED('n')} FROM notifications n
         WHERE n.account_id = ?1 AND n.id < ?2 AND n.id > ?3${filterSql('n', filter)}
         ORDER BY n.id ${order} LIMIT ?5),
      firsts AS (SELECT * FROM (${dialect.firstOfEachKey('win', 'page_key', `n_id ${order}`)}) AS first_rows
         ORDER BY n_id ${order} LIMIT ?4),
      done AS (SELECT (SELECT count(*) FROM firsts) = ?4 OR (SELECT count(*) FROM win) < ?5 AS complete),
      walk AS (SELECT f.* FROM firsts f, done WHERE done.complete),`;
}

/**
 * The walk: each step finds the next notification (in id order) whose page key is not yet in
 * `seen`, carrying the needed columns inside the CTE.
 */
function walkSql(
  dialect: Dialect,
  filter: Filter,
  key: (alias: string) => string,
  order: string,
  step: string,
): string {
  return `
      walk(n_id, page_key, seen, depth, type, from_account_id, status_id, group_key, filtered, created_at) AS (
        SELECT * FROM (
          SELECT n.id, ${key('n')}, ',' || ${key('n')} || ',', 1, ${CARRIED('n')} FROM notifications n
           WHERE n.account_id = ?1 AND n.id < ?2 AND n.id > ?3${filterSql('n', filter)}
           ORDER BY n.id ${order} LIMIT 1) AS first
        UNION ALL
        SELECT n.id, ${key('n')}, w.seen || ${key('n')} || ',', w.depth + 1, ${CARRIED('n')}
          FROM walk w JOIN notifications n ON n.id = (
            SELECT m.id FROM notifications m
             WHERE m.account_id = ?1 AND m.id ${step} w.n_id AND m.id < ?2 AND m.id > ?3${filterSql('m', filter)}
               AND ${dialect.position('w.seen', `',' || ${key('m')} || ','`)} = 0
             ORDER BY m.id ${order} LIMIT 1)
         WHERE w.depth < ?4
      ),`;
}

/**
 * The page in one statement. ?1 account, ?2 max_id (exclusive), ?3 since_id or min_id (exclusive),
 * ?4 limit, ?5 (the window only) the window's rows. Then the id range the page covers (Mastodon's
 * pagination_range: a full page spans its lowest to its highest representative; a short page with
 * min_id runs from its lowest up to max_id, exclusive; a short page otherwise from since_id,
 * exclusive, up to its highest), and per real group its newest id and time and 8 newest senders up
 * to the range's end, its count (counted apart only beyond the samples), and its lowest id from the
 * range's start (looked up apart only where the senders' rows may not reach it). One statement, one
 * JSON text: a page is one round trip.
 */
function buildGroupedPageSql(dialect: Dialect, { filter, groupedTypes, ascending, source }: PageShape): string {
  const order = ascending ? 'ASC' : 'DESC';
  const key = (alias: string) => keySql(alias, groupedTypes);
  const found =
    source === 'window'
      ? windowSql(dialect, filter, key, order)
      : walkSql(dialect, filter, key, order, ascending ? '>' : '<');
  const range = ascending
    ? `SELECT lowest AS begin_id, CASE WHEN size = ?4 THEN highest ELSE CAST(?2 AS BIGINT) - 1 END AS end_id FROM page`
    : `SELECT CASE WHEN size = ?4 THEN lowest ELSE CAST(?3 AS BIGINT) + 1 END AS begin_id, highest AS end_id FROM page`;
  const groupOf = (alias: string) => `account_id = ?1 AND group_key = ${alias}.page_key`;
  const newestId = `substr(newest, 1, ${dialect.position('newest', "':'")} - 1)`;
  const listed = `length(newest) - length(replace(newest, ',', ''))`;
  const complete = source === 'window' ? '(SELECT complete FROM done)' : 'TRUE';
  return `
      WITH RECURSIVE${found}
      page AS (SELECT count(*) AS size, min(n_id) AS lowest, max(n_id) AS highest FROM walk),
      range AS MATERIALIZED (${range}),
      -- Per real group, one walk down its newest rows up to the end of the range (newest id and
      -- time, senders, and the count when under 9). No quote mark in these comments: the reader
      -- numbers placeholders outside quoted text.
      groups AS MATERIALIZED (
        SELECT w.n_id, w.type, w.status_id, w.page_key, w.from_account_id, w.created_at, r.begin_id, r.end_id,
          CASE WHEN ${dialect.same('w.page_key', 'w.group_key')} THEN ${dialect.joinedRows(
            `SELECT CAST(id AS TEXT) || ':' || CAST(from_account_id AS TEXT) AS recent FROM notifications
             WHERE ${groupOf('w')} AND id <= r.end_id ORDER BY id DESC LIMIT ${SAMPLE_ACCOUNTS + 1}`,
            'recent',
            "','",
          )} END AS newest
        FROM walk w, range r)
      SELECT ${dialect.jsonArrayAgg(
        dialect.jsonArray([
          'CAST(n_id AS TEXT)',
          'type',
          'CAST(status_id AS TEXT)',
          'page_key',
          'CAST(from_account_id AS TEXT)',
          'created_at',
          'newest',
          // The lowest id from the range's start, where the listed rows may not reach it (9 listed).
          `CASE WHEN newest IS NOT NULL AND ${listed} >= ${SAMPLE_ACCOUNTS} THEN (SELECT CAST(min(id) AS TEXT) FROM notifications WHERE ${groupOf('g')} AND id >= g.begin_id) END`,
          `CASE WHEN newest IS NULL THEN NULL
               WHEN ${listed} < ${SAMPLE_ACCOUNTS} THEN ${listed} + 1
               ELSE (SELECT count(*) FROM notifications WHERE ${groupOf('g')} AND id <= g.end_id) END`,
          // The newest row's time: the walk's own row's where that is the newest (most groups).
          `CASE WHEN newest IS NULL THEN NULL WHEN ${newestId} = CAST(n_id AS TEXT) THEN created_at
               ELSE (SELECT created_at FROM notifications WHERE id = CAST(${newestId} AS BIGINT)) END`,
          'CAST(begin_id AS TEXT)',
        ]),
      )} AS page, ${complete} AS complete
        FROM groups g`;
}

/** A group's row as the page statement returns it; `newest`, `count` and `latestAt` only for real groups. */
export type PageTuple = [
  id: string,
  type: string,
  statusId: string | null,
  pageKey: string,
  fromAccountId: string,
  createdAt: string,
  newest: string | null,
  minId: string | null,
  count: number | null,
  latestAt: string | null,
  beginId: string,
];

/** The lowest of the listed `id:sender` rows at or above `beginId` (there is one: the group's own row). */
function lowestListedFrom(rows: readonly string[], beginId: string): string {
  const begin = BigInt(beginId);
  let lowest = rows[0].slice(0, rows[0].indexOf(':'));
  for (const row of rows) {
    const id = row.slice(0, row.indexOf(':'));
    if (BigInt(id) >= begin) lowest = id;
  }
  return lowest;
}

/**
 * A page group from its row. A real group's `newest` is `id:sender` of its newest rows (at most
 * 9), newest first: the first is its newest notification, the first 8 senders are its samples;
 * under 9, they are all its rows up to the range's end, so its lowest id from the range's start is
 * among them.
 */
export function pageGroup([
  representativeId,
  type,
  statusId,
  groupKey,
  fromAccountId,
  createdAt,
  newest,
  minId,
  count,
  latestAt,
  beginId,
]: PageTuple): PageGroup {
  if (newest === null) {
    return {
      representativeId,
      type,
      statusId,
      groupKey,
      count: 1,
      newestId: representativeId,
      minId: representativeId,
      latestAt: createdAt,
      sampleAccountIds: [fromAccountId],
    };
  }
  const rows = newest.split(',');
  const newestId = rows[0].slice(0, rows[0].indexOf(':'));
  const sampleAccountIds = rows.slice(0, SAMPLE_ACCOUNTS).map((row) => row.slice(row.indexOf(':') + 1));
  return {
    representativeId,
    type,
    statusId,
    groupKey,
    count: count!,
    newestId,
    minId: minId ?? lowestListedFrom(rows, beginId),
    latestAt: latestAt!,
    sampleAccountIds,
  };
}
