/**
 * Notification SQL (the grouped page's statement is built in grouped-page-repo.ts). No query ever
 * reads all of an account's notifications.
 */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectFor, dialectOf, rawRows } from '../../store/dialect.js';
import { GROUPABLE_TYPES, sqlList } from './types.js';
import {
  filterSql,
  groupedPageSqlFor,
  keySql,
  NOT_SUSPENDED,
  pageGroup,
  WINDOW_ROWS_PER_GROUP,
  type PageSource,
  type PageTuple,
} from './grouped-page-repo.js';

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

/** `AND` a row of `n` is the newest of its page group among the rows passing `filter` (every ungrouped row is). */
function notNewestOfGroup(filter: Filter, groupedTypes: readonly string[]): string {
  if (groupedTypes.length === 0) return '';
  const typed = (alias: string) =>
    groupedTypes.length === GROUPABLE_TYPES.length ? '' : ` AND ${alias}.type IN (${sqlList(groupedTypes)})`;
  return ` AND NOT (n.group_key IS NOT NULL${typed('n')} AND EXISTS (SELECT 1 FROM notifications o
    WHERE o.account_id = ?1 AND o.group_key = n.group_key AND o.id > n.id${typed('o')}${filterSql('o', filter)}))`;
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
    const dialect = dialectFor(this.ctx.reader.engine);
    const read = (source: PageSource, extra: number[]) =>
      this.ctx.reader.get<{ page: string; complete: number | boolean }>(
        groupedPageSqlFor(dialect, { filter, groupedTypes, ascending, source }),
        [accountId, cursor.maxId ?? MAX, lowBound, cursor.limit, ...extra],
      );
    // From the window of the range's first rows where the engine scans before walking; walked
    // where it does not, or when the window could not tell.
    let row = dialect.scansBeforeWalking ? await read('window', [cursor.limit * WINDOW_ROWS_PER_GROUP]) : undefined;
    if (!row?.complete) row = await read('walk', []);
    // Newest first, sorted here: a page has at most 80 groups, cheaper to sort in JavaScript than
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
   * Where the engine scans before walking, first from a window of the newest unread rows (distinct
   * page keys among `cap` times WINDOW_ROWS_PER_GROUP rows: one range scan); walked where it does
   * not, or when the window held fewer than `cap` groups yet not every unread row.
   */
  async countUnreadGroups(
    accountId: string,
    filter: Filter,
    groupedTypes: readonly string[],
    cap: number,
  ): Promise<number> {
    const dialect = dialectFor(this.ctx.reader.engine);
    if (groupedTypes.length > 0 && dialect.scansBeforeWalking) {
      const row = await this.ctx.reader.get<{ count: number; complete: number | boolean }>(
        `WITH win AS (SELECT ${keySql('n', groupedTypes)} AS page_key FROM notifications n
           WHERE n.account_id = ?1 AND n.id > ${MARKER}${filterSql('n', filter)} ORDER BY n.id DESC LIMIT ?3),
         seen AS (SELECT count(*) AS rows, count(DISTINCT page_key) AS groups FROM win)
        SELECT ${dialect.least('groups', '?2')} AS count, groups >= ?2 OR rows < ?3 AS complete FROM seen`,
        [accountId, cap, cap * WINDOW_ROWS_PER_GROUP],
      );
      if (row?.complete) return row.count;
    }
    return this.walkUnreadGroups(accountId, filter, groupedTypes, cap);
  }

  /**
   * The groups counted one at a time, newest first: a row counts unless a newer one of its group
   * passes the same filters (one probe of the group index). The scan stops at the cap on both
   * engines, where a DISTINCT is aggregated whole on PostgreSQL before its LIMIT.
   */
  private async walkUnreadGroups(
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
