/**
 * Notification SQL. The grouped page is a recursive CTE that takes one step per group kept: each
 * step finds the next notification (in id order) whose group is not yet on the page, carrying the
 * needed columns inside the CTE. Group aggregates are bounded index lookups per group, in the same
 * statement. No query ever reads all of an account's notifications.
 */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectFor, dialectOf, rawRows, type Dialect } from '../../store/dialect.js';
import { GROUPABLE_TYPES, sqlList } from './types.js';
import { SAMPLE_ACCOUNTS } from './grouping.js';

export interface NotificationRow {
  id: string;
  type: string;
  from_account_id: string;
  status_id: string | null;
  group_key: string | null;
  filtered: number;
  created_at: string;
}

/** One group of a v2 page, counted over the page's range. */
export interface PageGroup {
  /** The walk's row for the group (its first met in the page's direction): the Link cursors. */
  representativeId: string;
  groupKey: string;
  type: string;
  statusId: string | null;
  count: number;
  /** Newest and lowest notification of the group within the page's range. */
  newestId: string;
  minId: string;
  latestAt: string;
  /** Newest first, at most 8. */
  sampleAccountIds: string[];
}

export interface Filter {
  /** null: every type. */
  types: string[] | null;
  includeFiltered: boolean;
  fromAccountId?: string;
}

export interface Cursor {
  maxId?: string;
  sinceId?: string;
  minId?: string;
  limit: number;
}

const COLUMNS = (
  n: string,
) => `CAST(${n}.id AS TEXT) AS id, ${n}.type, CAST(${n}.from_account_id AS TEXT) AS from_account_id,
  CAST(${n}.status_id AS TEXT) AS status_id, ${n}.group_key, ${n}.filtered, ${n}.created_at`;
const MAX = '9223372036854775807';
/** The notifications read marker of account ?1, inside the count statement: one query, not two. */
const MARKER = `coalesce((SELECT mk.last_read_id FROM markers mk WHERE mk.account_id = ?1 AND mk.timeline = 'notifications'), 0)`;

/** Notifications from suspended accounts are never shown (Mastodon's without_suspended). */
const NOT_SUSPENDED = (alias: string) =>
  ` AND NOT EXISTS (SELECT 1 FROM accounts sa WHERE sa.id = ${alias}.from_account_id AND sa.suspended_at IS NOT NULL)`;

function filterSql(alias: string, filter: Filter): string {
  let sql = NOT_SUSPENDED(alias);
  if (filter.types) sql += filter.types.length ? ` AND ${alias}.type IN (${sqlList(filter.types)})` : ' AND FALSE';
  if (!filter.includeFiltered) sql += ` AND NOT ${alias}.filtered`;
  return sql;
}

/** The page key expression: stored keys count only for the grouped types. */
function keySql(alias: string, groupedTypes: readonly string[]): string {
  if (groupedTypes.length === GROUPABLE_TYPES.length)
    return `coalesce(${alias}.group_key, 'ungrouped-' || ${alias}.id)`;
  if (groupedTypes.length === 0) return `'ungrouped-' || ${alias}.id`;
  return `CASE WHEN ${alias}.group_key IS NOT NULL AND ${alias}.type IN (${sqlList(groupedTypes)}) THEN ${alias}.group_key ELSE 'ungrouped-' || ${alias}.id END`;
}

/** `AND` a row of `n` is the newest of its page group among the rows passing `filter` (every ungrouped row is). */
function notNewestOfGroup(filter: Filter, groupedTypes: readonly string[]): string {
  if (groupedTypes.length === 0) return '';
  const typed = (alias: string) =>
    groupedTypes.length === GROUPABLE_TYPES.length ? '' : ` AND ${alias}.type IN (${sqlList(groupedTypes)})`;
  return ` AND NOT (n.group_key IS NOT NULL${typed('n')} AND EXISTS (SELECT 1 FROM notifications o
    WHERE o.account_id = ?1 AND o.group_key = n.group_key AND o.id > n.id${typed('o')}${filterSql('o', filter)}))`;
}

/** The grouped page's SQL per filter shape, built once each (few shapes exist), so the reader finds its prepared statement by the same string. */
const groupedPageSql = new Map<string, string>();

function groupedPageSqlFor(
  dialect: Dialect,
  filter: Filter,
  groupedTypes: readonly string[],
  ascending: boolean,
): string {
  const shape = `${dialect.engine}|${ascending}|${filter.includeFiltered}|${filter.types?.join() ?? '*'}|${groupedTypes.join()}`;
  let sql = groupedPageSql.get(shape);
  if (sql === undefined) {
    if (groupedPageSql.size > 200) groupedPageSql.clear();
    sql = buildGroupedPageSql(dialect, filter, groupedTypes, ascending);
    groupedPageSql.set(shape, sql);
  }
  return sql;
}

/**
 * The page in one statement. The walk: each step finds the next notification (in id order) whose
 * page key is not yet in `seen`. ?1 account, ?2 max_id (exclusive), ?3 since_id or min_id
 * (exclusive), ?4 limit. Then the id range the page covers (Mastodon's pagination_range: a full page
 * spans its lowest to its highest representative; a short page with min_id runs from its lowest up
 * to max_id, exclusive; a short page otherwise from since_id, exclusive, up to its highest), and
 * per real group its newest id and time and 8 newest senders up to the range's end, its count
 * (counted apart only beyond the samples), and its lowest id from the range's start. One
 * statement, one JSON text: a page is one round trip to SQLite.
 */
function buildGroupedPageSql(
  dialect: Dialect,
  filter: Filter,
  groupedTypes: readonly string[],
  ascending: boolean,
): string {
  const order = ascending ? 'ASC' : 'DESC';
  const step = ascending ? '>' : '<';
  const key = (alias: string) => keySql(alias, groupedTypes);
  const carried = (n: string) =>
    `${n}.type, ${n}.from_account_id, ${n}.status_id, ${n}.group_key, ${n}.filtered, ${n}.created_at`;
  const range = ascending
    ? `SELECT lowest AS begin_id, CASE WHEN size = ?4 THEN highest ELSE CAST(?2 AS BIGINT) - 1 END AS end_id FROM page`
    : `SELECT CASE WHEN size = ?4 THEN lowest ELSE CAST(?3 AS BIGINT) + 1 END AS begin_id, highest AS end_id FROM page`;
  const groupOf = (alias: string) => `account_id = ?1 AND group_key = ${alias}.page_key`;
  const newestId = `substr(newest, 1, ${dialect.position('newest', "':'")} - 1)`;
  return `
      WITH RECURSIVE walk(n_id, page_key, seen, depth, type, from_account_id, status_id, group_key, filtered, created_at) AS (
        SELECT * FROM (
          SELECT n.id, ${key('n')}, ',' || ${key('n')} || ',', 1, ${carried('n')} FROM notifications n
           WHERE n.account_id = ?1 AND n.id < ?2 AND n.id > ?3${filterSql('n', filter)}
           ORDER BY n.id ${order} LIMIT 1) AS first
        UNION ALL
        SELECT n.id, ${key('n')}, w.seen || ${key('n')} || ',', w.depth + 1, ${carried('n')}
          FROM walk w JOIN notifications n ON n.id = (
            SELECT m.id FROM notifications m
             WHERE m.account_id = ?1 AND m.id ${step} w.n_id AND m.id < ?2 AND m.id > ?3${filterSql('m', filter)}
               AND ${dialect.position('w.seen', `',' || ${key('m')} || ','`)} = 0
             ORDER BY m.id ${order} LIMIT 1)
         WHERE w.depth < ?4
      ),
      page AS (SELECT count(*) AS size, min(n_id) AS lowest, max(n_id) AS highest FROM walk),
      range AS (${range}),
      -- Per real group, one walk down its newest rows up to the range's end (newest id and time,
      -- senders, and the count when under 9), and its lowest id from the range's start.
      groups AS MATERIALIZED (
        SELECT w.n_id, w.type, w.status_id, w.page_key, w.from_account_id, w.created_at, r.end_id,
          CASE WHEN ${dialect.same('w.page_key', 'w.group_key')} THEN (SELECT ${dialect.joinedText(`recent.id || ':' || recent.from_account_id`, "','", 'recent.id DESC')} FROM (SELECT id, from_account_id
             FROM notifications WHERE ${groupOf('w')} AND id <= r.end_id ORDER BY id DESC LIMIT ${SAMPLE_ACCOUNTS + 1}) AS recent) END AS newest,
          CASE WHEN ${dialect.same('w.page_key', 'w.group_key')} THEN (SELECT min(id) FROM notifications WHERE ${groupOf('w')} AND id >= r.begin_id) END AS min_id
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
          'CAST(min_id AS TEXT)',
          `CASE WHEN newest IS NULL THEN NULL
               WHEN length(newest) - length(replace(newest, ',', '')) < ${SAMPLE_ACCOUNTS} THEN length(newest) - length(replace(newest, ',', '')) + 1
               ELSE (SELECT count(*) FROM notifications WHERE ${groupOf('g')} AND id <= g.end_id) END`,
          // The newest row's time: the walk's own row's where that is the newest (most groups).
          `CASE WHEN newest IS NULL THEN NULL WHEN ${newestId} = CAST(n_id AS TEXT) THEN created_at
               ELSE (SELECT created_at FROM notifications WHERE id = CAST(${newestId} AS BIGINT)) END`,
        ]),
      )} AS page
        FROM groups g`;
}

/** A group's row as the page statement returns it; `newest`, `minId`, `count` and `latestAt` only for real groups. */
type PageTuple = [
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
];

/**
 * A page group from its row. A real group's `newest` is `id:sender` of its newest rows (at most
 * 9), newest first: the first is its newest notification, the first 8 senders are its samples.
 */
function pageGroup([
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
  const rows = newest.split(',', SAMPLE_ACCOUNTS);
  const newestId = rows[0].slice(0, rows[0].indexOf(':'));
  const sampleAccountIds = rows.map((row) => row.slice(row.indexOf(':') + 1));
  return {
    representativeId,
    type,
    statusId,
    groupKey,
    count: count!,
    newestId,
    minId: minId!,
    latestAt: latestAt!,
    sampleAccountIds,
  };
}

export class NotificationsRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** v1 page: newest first; with min_id, the oldest `limit` above it (still returned newest first). */
  list(accountId: string, filter: Filter, cursor: Cursor): Promise<NotificationRow[]> {
    if (cursor.limit === 0) return Promise.resolve([]);
    const ascending = cursor.minId !== undefined;
    const from = filter.fromAccountId !== undefined ? ' AND n.from_account_id = ?5' : '';
    return this.ctx.reader.all<NotificationRow>(
      `SELECT * FROM (SELECT ${COLUMNS('n')}, n.id AS n_id FROM notifications n
         WHERE n.account_id = ?1 AND n.id < ?2 AND n.id > ?3${filterSql('n', filter)}${from}
         ORDER BY n.id ${ascending ? 'ASC' : 'DESC'} LIMIT ?4) AS page ORDER BY n_id DESC`,
      [
        accountId,
        cursor.maxId ?? MAX,
        (ascending ? cursor.minId : cursor.sinceId) ?? '0',
        cursor.limit,
        ...(from ? [filter.fromAccountId!] : []),
      ],
    );
  }

  /** v2 page: its groups, newest first (with min_id: the oldest after it, still newest first). */
  async groupedPage(
    accountId: string,
    filter: Filter,
    groupedTypes: readonly string[],
    cursor: Cursor,
  ): Promise<PageGroup[]> {
    if (cursor.limit === 0) return [];
    const ascending = cursor.minId !== undefined;
    const lowBound = (ascending ? cursor.minId : cursor.sinceId) ?? '0';
    const row = await this.ctx.reader.get<{ page: string }>(
      groupedPageSqlFor(dialectFor(this.ctx.reader.engine), filter, groupedTypes, ascending),
      [accountId, cursor.maxId ?? MAX, lowBound, cursor.limit],
    );
    // Newest first, sorted here: a page has at most 40 groups, cheaper to sort in JavaScript than
    // with a sorter in the statement. Decimal ids: the longer is the larger.
    return (JSON.parse(row?.page ?? '[]') as PageTuple[])
      .map(pageGroup)
      .sort(
        (a, b) =>
          b.representativeId.length - a.representativeId.length || (b.representativeId > a.representativeId ? 1 : -1),
      );
  }

  /** The notifications of one group key (or `ungrouped-<id>`), newest first, any age. */
  byGroupKey(accountId: string, groupKey: string): Promise<NotificationRow[]> {
    const ungrouped = /^ungrouped-(\d{1,19})$/.exec(groupKey);
    if (ungrouped) {
      return this.ctx.reader
        .all<NotificationRow>(`SELECT ${COLUMNS('n')} FROM notifications n WHERE n.account_id = ? AND n.id = ?`, [
          accountId,
          ungrouped[1],
        ])
        .then(async (rows) => (rows[0]?.group_key ? this.byGroupKey(accountId, rows[0].group_key) : rows));
    }
    return this.ctx.reader.all<NotificationRow>(
      `SELECT ${COLUMNS('n')} FROM notifications n WHERE n.account_id = ? AND n.group_key = ? ORDER BY n.id DESC`,
      [accountId, groupKey],
    );
  }

  /** Accounts of a real group, newest first, paged by notification id. */
  groupAccounts(
    accountId: string,
    groupKey: string,
    cursor: Cursor,
  ): Promise<Array<{ id: string; from_account_id: string }>> {
    const ascending = cursor.minId !== undefined;
    return this.ctx.reader.all(
      `SELECT * FROM (SELECT CAST(id AS TEXT) AS id, CAST(from_account_id AS TEXT) AS from_account_id, id AS n_id
        FROM notifications WHERE account_id = ?1 AND group_key = ?2 AND id < ?3 AND id > ?4
        ORDER BY id ${ascending ? 'ASC' : 'DESC'} LIMIT ?5) AS page ORDER BY n_id DESC`,
      [accountId, groupKey, cursor.maxId ?? MAX, (ascending ? cursor.minId : cursor.sinceId) ?? '0', cursor.limit],
    );
  }

  one(accountId: string, id: string): Promise<NotificationRow | undefined> {
    return this.ctx.reader.get<NotificationRow>(
      `SELECT ${COLUMNS('n')} FROM notifications n WHERE n.account_id = ? AND n.id = ?${NOT_SUSPENDED('n')}`,
      [accountId, id],
    );
  }

  /** Notifications above the read marker, capped (v1 unread_count counts notifications). */
  async countUnread(accountId: string, filter: Filter, cap: number): Promise<number> {
    const from = filter.fromAccountId !== undefined ? ' AND n.from_account_id = ?3' : '';
    const row = await this.ctx.reader.get<{ count: number }>(
      `SELECT count(*) AS count FROM (SELECT 1 FROM notifications n WHERE n.account_id = ?1 AND n.id > ${MARKER}${filterSql('n', filter)}${from} LIMIT ?2) AS unread`,
      [accountId, cap, ...(from ? [filter.fromAccountId!] : [])],
    );
    return row?.count ?? 0;
  }

  /**
   * Groups having a notification above the read marker, capped (v2 unread_count counts groups).
   * Each group counts at its newest unread row, newest first: a row counts unless a newer one of its
   * group passes the same filters (one probe of the group index). The scan stops at the cap on both
   * engines, where a DISTINCT is aggregated whole on PostgreSQL before its LIMIT.
   */
  async countUnreadGroups(
    accountId: string,
    filter: Filter,
    groupedTypes: readonly string[],
    cap: number,
  ): Promise<number> {
    const row = await this.ctx.reader.get<{ count: number }>(
      `SELECT count(*) AS count FROM (SELECT n.id FROM notifications n
         WHERE n.account_id = ?1 AND n.id > ${MARKER}${filterSql('n', filter)}${notNewestOfGroup(filter, groupedTypes)}
         ORDER BY n.id DESC LIMIT ?2) AS unread`,
      [accountId, cap],
    );
    return row?.count ?? 0;
  }

  // ── writes ──

  /** The start bucket of the open 12-hour window of (recipient, prefix), if any. */
  async openWindow(trx: Knex, accountId: string, prefix: string): Promise<number | null> {
    const rows = await rawRows<{ hour_bucket: number }>(
      trx,
      `SELECT hour_bucket FROM notification_group_windows WHERE account_id = ? AND prefix = ?`,
      [accountId, prefix],
    );
    return rows[0]?.hour_bucket ?? null;
  }

  async setWindow(trx: Knex, accountId: string, prefix: string, bucket: number): Promise<void> {
    await trx.raw(
      `INSERT INTO notification_group_windows (account_id, prefix, hour_bucket) VALUES (?, ?, ?)
      ON CONFLICT (account_id, prefix) DO UPDATE SET hour_bucket = excluded.hour_bucket`,
      [accountId, prefix, bucket],
    );
  }

  /** Notifications outside any group, in one statement; each one's id by its recipient. */
  async insertUngrouped(
    rows: ReadonlyArray<{
      account_id: string;
      from_account_id: string;
      type: string;
      status_id: string | null;
      activity_id: string | null;
      filtered: boolean;
      created_at: string;
    }>,
  ): Promise<Map<string, string>> {
    if (rows.length === 0) return new Map();
    const inserted = await rawRows<{ id: string; account_id: string }>(
      this.ctx.db,
      `INSERT INTO notifications (account_id, from_account_id, type, status_id, activity_id, group_key, filtered, created_at)
      VALUES ${rows.map(() => '(?, ?, ?, ?, ?, NULL, ?, ?)').join(', ')}
      RETURNING CAST(id AS TEXT) AS id, CAST(account_id AS TEXT) AS account_id`,
      rows.flatMap((row) => [
        row.account_id,
        row.from_account_id,
        row.type,
        row.status_id,
        row.activity_id,
        row.filtered ? 1 : 0,
        row.created_at,
      ]),
    );
    return new Map(inserted.map((row) => [row.account_id, row.id]));
  }

  async insert(
    trx: Knex,
    row: {
      account_id: string;
      from_account_id: string;
      type: string;
      status_id: string | null;
      activity_id: string | null;
      group_key: string | null;
      filtered: boolean;
      created_at: string;
    },
  ): Promise<string> {
    const rows = await rawRows<{ id: string }>(
      trx,
      `INSERT INTO notifications (account_id, from_account_id, type, status_id, activity_id, group_key, filtered, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING CAST(id AS TEXT) AS id`,
      [
        row.account_id,
        row.from_account_id,
        row.type,
        row.status_id,
        row.activity_id,
        row.group_key,
        row.filtered ? 1 : 0,
        row.created_at,
      ],
    );
    return rows[0].id;
  }

  /** Deletes matching notifications; returns the recipients touched. */
  async remove(
    trx: Knex,
    where: { accountId?: string; fromAccountId?: string; type?: string; statusId?: string; activityId?: string },
  ): Promise<string[]> {
    const clauses: string[] = [];
    const bindings: string[] = [];
    const add = (sql: string, value: string | undefined) => {
      if (value !== undefined) {
        clauses.push(sql);
        bindings.push(value);
      }
    };
    add('account_id = ?', where.accountId);
    add('from_account_id = ?', where.fromAccountId);
    add('type = ?', where.type);
    add('status_id = ?', where.statusId);
    add('activity_id = ?', where.activityId);
    if (clauses.length === 0) throw new Error('refusing to delete every notification');
    const rows = await rawRows<{ account_id: string }>(
      trx,
      `DELETE FROM notifications WHERE ${clauses.join(' AND ')} RETURNING CAST(account_id AS TEXT) AS account_id`,
      bindings,
    );
    return [...new Set(rows.map((row) => row.account_id))];
  }

  async removeIds(accountId: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows = await rawRows(
      this.ctx.db,
      `DELETE FROM notifications WHERE account_id = ? AND id IN ${dialectOf(this.ctx.db).idSet()} RETURNING id`,
      [accountId, JSON.stringify(ids)],
    );
    return rows.length;
  }

  async clear(accountId: string): Promise<void> {
    await this.ctx.db.raw(`DELETE FROM notifications WHERE account_id = ?`, [accountId]);
  }
}
