/**
 * Notification SQL. The grouped page is a recursive CTE that takes one step per group kept: each
 * step finds the next notification (in id order) whose group is not yet on the page, carrying the
 * needed columns inside the CTE. Group aggregates are bounded index lookups per group. No query
 * ever reads all of an account's notifications.
 */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
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

export interface PageRow extends NotificationRow {
  /** The group this row stands for on the page: its stored key, or `ungrouped-<id>`. */
  page_key: string;
}

export interface Filter {
  /** null: every type. */
  types: string[] | null;
  includeFiltered: boolean;
  fromAccountId?: string;
}

export interface Cursor { maxId?: string; sinceId?: string; minId?: string; limit: number }

export interface GroupAggregate {
  group_key: string;
  max_id: string;
  count: number;
  min_id: string | null;
  latest_at: string;
  samples: string[];
}

const COLUMNS = (n: string) => `CAST(${n}.id AS TEXT) AS id, ${n}.type, CAST(${n}.from_account_id AS TEXT) AS from_account_id,
  CAST(${n}.status_id AS TEXT) AS status_id, ${n}.group_key, ${n}.filtered, ${n}.created_at`;
const MAX = '9223372036854775807';
/** The notifications read marker of account ?1, inside the count statement: one query, not two. */
const MARKER = `coalesce((SELECT mk.last_read_id FROM markers mk WHERE mk.account_id = ?1 AND mk.timeline = 'notifications'), 0)`;
const PAGE_FIELDS = ['id', 'type', 'from_account_id', 'status_id', 'group_key', 'filtered', 'created_at', 'page_key'] as const;

/** Notifications from suspended accounts are never shown (Mastodon's without_suspended). */
const NOT_SUSPENDED = (alias: string) => ` AND NOT EXISTS (SELECT 1 FROM accounts sa WHERE sa.id = ${alias}.from_account_id AND sa.suspended_at IS NOT NULL)`;

function filterSql(alias: string, filter: Filter): string {
  let sql = NOT_SUSPENDED(alias);
  if (filter.types) sql += filter.types.length ? ` AND ${alias}.type IN (${sqlList(filter.types)})` : ' AND 0';
  if (!filter.includeFiltered) sql += ` AND ${alias}.filtered = 0`;
  return sql;
}

/** The page key expression: stored keys count only for the grouped types. */
function keySql(alias: string, groupedTypes: readonly string[]): string {
  if (groupedTypes.length === GROUPABLE_TYPES.length) return `coalesce(${alias}.group_key, 'ungrouped-' || ${alias}.id)`;
  if (groupedTypes.length === 0) return `'ungrouped-' || ${alias}.id`;
  return `CASE WHEN ${alias}.group_key IS NOT NULL AND ${alias}.type IN (${sqlList(groupedTypes)}) THEN ${alias}.group_key ELSE 'ungrouped-' || ${alias}.id END`;
}

/** Per group key in ?2 of account ?1: its newest nine rows up to ?4, lowest id from ?3, count. A constant: see Reader.wrapped. */
const AGGREGATES_SQL = `
      WITH g AS MATERIALIZED (
        SELECT j.value AS group_key,
          (SELECT json_group_array(json_array(CAST(id AS TEXT), CAST(from_account_id AS TEXT), created_at)) FROM (SELECT id, from_account_id, created_at
             FROM notifications WHERE account_id = ?1 AND group_key = j.value AND id <= ?4 ORDER BY id DESC LIMIT ${SAMPLE_ACCOUNTS + 1})) AS newest,
          (SELECT CAST(min(id) AS TEXT) FROM notifications WHERE account_id = ?1 AND group_key = j.value AND id >= ?3) AS min_id
        FROM json_each(?2) j)
      SELECT group_key, newest, min_id,
        CASE WHEN json_array_length(newest) <= ${SAMPLE_ACCOUNTS} THEN json_array_length(newest)
          ELSE (SELECT count(*) FROM notifications WHERE account_id = ?1 AND group_key = g.group_key AND id <= ?4) END AS count
      FROM g`;
const AGGREGATE_FIELDS = ['group_key', 'newest', 'min_id', 'count'] as const;

/** The grouped page's SQL per filter shape, built once each (few shapes exist: see Reader.wrapped). */
const groupedPageSql = new Map<string, string>();

function groupedPageSqlFor(filter: Filter, groupedTypes: readonly string[], ascending: boolean): string {
  const shape = `${ascending}|${filter.includeFiltered}|${filter.types?.join() ?? '*'}|${groupedTypes.join()}`;
  let sql = groupedPageSql.get(shape);
  if (sql === undefined) {
    if (groupedPageSql.size > 200) groupedPageSql.clear();
    sql = buildGroupedPageSql(filter, groupedTypes, ascending);
    groupedPageSql.set(shape, sql);
  }
  return sql;
}

/**
 * The walk: each step finds the next notification (in id order) whose page key is not yet in
 * `seen`. ?1 account, ?2 max_id (exclusive), ?3 since_id or min_id (exclusive), ?4 limit.
 */
function buildGroupedPageSql(filter: Filter, groupedTypes: readonly string[], ascending: boolean): string {
  const order = ascending ? 'ASC' : 'DESC';
  const step = ascending ? '>' : '<';
  const key = (alias: string) => keySql(alias, groupedTypes);
  const carried = (n: string) => `${n}.type, ${n}.from_account_id, ${n}.status_id, ${n}.group_key, ${n}.filtered, ${n}.created_at`;
  return `
      WITH RECURSIVE walk(n_id, page_key, seen, depth, type, from_account_id, status_id, group_key, filtered, created_at) AS (
        SELECT * FROM (
          SELECT n.id, ${key('n')}, ',' || ${key('n')} || ',', 1, ${carried('n')} FROM notifications n
           WHERE n.account_id = ?1 AND n.id < ?2 AND n.id > ?3${filterSql('n', filter)}
           ORDER BY n.id ${order} LIMIT 1)
        UNION ALL
        SELECT n.id, ${key('n')}, w.seen || ${key('n')} || ',', w.depth + 1, ${carried('n')}
          FROM walk w JOIN notifications n ON n.id = (
            SELECT m.id FROM notifications m
             WHERE m.account_id = ?1 AND m.id ${step} w.n_id AND m.id < ?2 AND m.id > ?3${filterSql('m', filter)}
               AND instr(w.seen, ',' || ${key('m')} || ',') = 0
             ORDER BY m.id ${order} LIMIT 1)
         WHERE w.depth < ?4
      )
      SELECT CAST(n_id AS TEXT) AS id, type, CAST(from_account_id AS TEXT) AS from_account_id, CAST(status_id AS TEXT) AS status_id,
             group_key, filtered, created_at, page_key FROM walk`;
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
         ORDER BY n.id ${ascending ? 'ASC' : 'DESC'} LIMIT ?4) ORDER BY n_id DESC`,
      [accountId, cursor.maxId ?? MAX, (ascending ? cursor.minId : cursor.sinceId) ?? '0', cursor.limit, ...(from ? [filter.fromAccountId!] : [])]);
  }

  /** v2 page: one representative per group, newest first (with min_id: the oldest after it, reversed). */
  async groupedPage(accountId: string, filter: Filter, groupedTypes: readonly string[], cursor: Cursor): Promise<PageRow[]> {
    if (cursor.limit === 0) return [];
    const ascending = cursor.minId !== undefined;
    const lowBound = (ascending ? cursor.minId : cursor.sinceId) ?? '0';
    const rows = await this.ctx.reader.allJson<PageRow>(groupedPageSqlFor(filter, groupedTypes, ascending), PAGE_FIELDS,
      [accountId, cursor.maxId ?? MAX, lowBound, cursor.limit]);
    // Newest first, whatever order the JSON aggregate kept (decimal ids: longer is larger).
    return rows.sort((a, b) => b.id.length - a.id.length || (b.id > a.id ? 1 : -1));
  }

  /** Per stored group key: newest id, count and 8 newest senders up to `end`; lowest id from `begin`. */
  async groupAggregates(accountId: string, keys: readonly string[], begin: string, end: string): Promise<GroupAggregate[]> {
    if (keys.length === 0) return [];
    // One walk down each group's newest rows gives its newest id and time, its senders and, for
    // the usual group of under 9, its count; only larger groups are counted apart. MATERIALIZED:
    // flattened, the walk would run again for each use of `newest`.
    // `newest` arrives as JSON text (a subquery's result is text to the JSON functions).
    const rows = await this.ctx.reader.allJson<{ group_key: string; newest: string; min_id: string | null; count: number }>(
      AGGREGATES_SQL, AGGREGATE_FIELDS, [accountId, JSON.stringify(keys), begin, end]);
    return rows.flatMap((row) => {
      const newest = JSON.parse(row.newest) as Array<[id: string, fromAccountId: string, createdAt: string]>;
      if (newest.length === 0) return [];
      return [{
        group_key: row.group_key,
        max_id: newest[0]![0],
        count: row.count,
        min_id: row.min_id,
        latest_at: newest[0]![2],
        samples: newest.slice(0, SAMPLE_ACCOUNTS).map(([, fromAccountId]) => fromAccountId),
      }];
    });
  }

  /** The notifications of one group key (or `ungrouped-<id>`), newest first, any age. */
  byGroupKey(accountId: string, groupKey: string): Promise<NotificationRow[]> {
    const ungrouped = /^ungrouped-(\d{1,19})$/.exec(groupKey);
    if (ungrouped) {
      return this.ctx.reader.all<NotificationRow>(`SELECT ${COLUMNS('n')} FROM notifications n WHERE n.account_id = ? AND n.id = ?`, [accountId, ungrouped[1]!])
        .then(async (rows) => (rows[0]?.group_key ? this.byGroupKey(accountId, rows[0].group_key) : rows));
    }
    return this.ctx.reader.all<NotificationRow>(
      `SELECT ${COLUMNS('n')} FROM notifications n WHERE n.account_id = ? AND n.group_key = ? ORDER BY n.id DESC`, [accountId, groupKey]);
  }

  /** Accounts of a real group, newest first, paged by notification id. */
  groupAccounts(accountId: string, groupKey: string, cursor: Cursor): Promise<Array<{ id: string; from_account_id: string }>> {
    const ascending = cursor.minId !== undefined;
    return this.ctx.reader.all(`SELECT * FROM (SELECT CAST(id AS TEXT) AS id, CAST(from_account_id AS TEXT) AS from_account_id, id AS n_id
        FROM notifications WHERE account_id = ?1 AND group_key = ?2 AND id < ?3 AND id > ?4
        ORDER BY id ${ascending ? 'ASC' : 'DESC'} LIMIT ?5) ORDER BY n_id DESC`,
    [accountId, groupKey, cursor.maxId ?? MAX, (ascending ? cursor.minId : cursor.sinceId) ?? '0', cursor.limit]);
  }

  one(accountId: string, id: string): Promise<NotificationRow | undefined> {
    return this.ctx.reader.get<NotificationRow>(`SELECT ${COLUMNS('n')} FROM notifications n WHERE n.account_id = ? AND n.id = ?${NOT_SUSPENDED('n')}`, [accountId, id]);
  }

  /** Notifications above the read marker, capped (v1 unread_count counts notifications). */
  async countUnread(accountId: string, filter: Filter, cap: number): Promise<number> {
    const from = filter.fromAccountId !== undefined ? ' AND n.from_account_id = ?3' : '';
    const row = await this.ctx.reader.get<{ count: number }>(
      `SELECT count(*) AS count FROM (SELECT 1 FROM notifications n WHERE n.account_id = ?1 AND n.id > ${MARKER}${filterSql('n', filter)}${from} LIMIT ?2)`,
      [accountId, cap, ...(from ? [filter.fromAccountId!] : [])]);
    return row?.count ?? 0;
  }

  /** Groups having a notification above the read marker, capped (v2 unread_count counts groups). */
  async countUnreadGroups(accountId: string, filter: Filter, groupedTypes: readonly string[], cap: number): Promise<number> {
    const row = await this.ctx.reader.get<{ count: number }>(
      `SELECT count(*) AS count FROM (SELECT DISTINCT ${keySql('n', groupedTypes)} FROM notifications n
         WHERE n.account_id = ?1 AND n.id > ${MARKER}${filterSql('n', filter)} ORDER BY n.id DESC LIMIT ?2)`,
      [accountId, cap]);
    return row?.count ?? 0;
  }

  // ── writes ──

  /** The start bucket of the open 12-hour window of (recipient, prefix), if any. */
  async openWindow(trx: Knex, accountId: string, prefix: string): Promise<number | null> {
    const rows = await trx.raw(`SELECT hour_bucket FROM notification_group_windows WHERE account_id = ? AND prefix = ?`, [accountId, prefix]);
    return (rows as Array<{ hour_bucket: number }>)[0]?.hour_bucket ?? null;
  }

  async setWindow(trx: Knex, accountId: string, prefix: string, bucket: number): Promise<void> {
    await trx.raw(`INSERT INTO notification_group_windows (account_id, prefix, hour_bucket) VALUES (?, ?, ?)
      ON CONFLICT (account_id, prefix) DO UPDATE SET hour_bucket = excluded.hour_bucket`, [accountId, prefix, bucket]);
  }

  async insert(trx: Knex, row: { account_id: string; from_account_id: string; type: string; status_id: string | null; activity_id: string | null; group_key: string | null; filtered: boolean; created_at: string }): Promise<string> {
    const rows = await trx.raw(`INSERT INTO notifications (account_id, from_account_id, type, status_id, activity_id, group_key, filtered, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING CAST(id AS TEXT) AS id`,
    [row.account_id, row.from_account_id, row.type, row.status_id, row.activity_id, row.group_key, row.filtered ? 1 : 0, row.created_at]);
    return (rows as Array<{ id: string }>)[0]!.id;
  }

  /** Deletes matching notifications; returns the recipients touched. */
  async remove(trx: Knex, where: { accountId?: string; fromAccountId?: string; type?: string; statusId?: string; activityId?: string }): Promise<string[]> {
    const clauses: string[] = [];
    const bindings: string[] = [];
    const add = (sql: string, value: string | undefined) => { if (value !== undefined) { clauses.push(sql); bindings.push(value); } };
    add('account_id = ?', where.accountId);
    add('from_account_id = ?', where.fromAccountId);
    add('type = ?', where.type);
    add('status_id = ?', where.statusId);
    add('activity_id = ?', where.activityId);
    if (clauses.length === 0) throw new Error('refusing to delete every notification');
    const rows = await trx.raw(`DELETE FROM notifications WHERE ${clauses.join(' AND ')} RETURNING CAST(account_id AS TEXT) AS account_id`, bindings);
    return [...new Set((rows as Array<{ account_id: string }>).map((row) => row.account_id))];
  }

  async removeIds(accountId: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows = await this.ctx.db.raw(`DELETE FROM notifications WHERE account_id = ? AND id IN (SELECT CAST(value AS INTEGER) FROM json_each(?)) RETURNING id`, [accountId, JSON.stringify(ids)]);
    return (rows as unknown[]).length;
  }

  async clear(accountId: string): Promise<void> {
    await this.ctx.db.raw(`DELETE FROM notifications WHERE account_id = ?`, [accountId]);
  }
}
