/** SQL for reports: the reported account, the one way a report is stored, the owner's review reads, resolving. */
import type { Knex } from 'knex';
import { dialectOf, idList, rawRows, type Dialect } from '../../store/dialect.js';
import type { SocialContext } from '../context.js';
import { visibleBy } from '../statuses/visibility.js';
import { cursorPageSql, type PageQuery } from '../store/paging.js';

export interface ReportRow {
  id: string;
  target_account_id: string;
  comment: string;
  category: string;
  rule_ids: string;
  forwarded: number;
  action_taken_at: string | null;
  created_at: string;
}

/** A report as the owner reviews it, its cited statuses as a JSON array of ids. */
export interface ReviewRow extends ReportRow {
  account_id: string;
  status_ids_json: string;
}

/** Which reports the owner lists: resolved or not, and by reporter or reported account. */
export interface ReportFilter {
  resolved: boolean;
  accountId?: string;
  targetAccountId?: string;
}

/** A report as stored; `ruleIds` and `forwardToDomains` are kept as JSON arrays. */
export interface ReportInsert {
  accountId: string;
  targetAccountId: string;
  comment: string;
  category: string;
  ruleIds: readonly number[];
  forwarded: boolean;
  forwardToDomains: readonly string[];
  statusIds: readonly string[];
  createdAt: string;
}

export interface ServerRule {
  id: number;
  text: string;
  hint: string;
}

const REPORT_COLUMNS = `CAST(id AS TEXT) AS id, CAST(target_account_id AS TEXT) AS target_account_id, comment, category,
  rule_ids, forwarded, action_taken_at, created_at`;

const reviewColumns = (dialect: Dialect) => `CAST(r.id AS TEXT) AS id, CAST(r.account_id AS TEXT) AS account_id,
  CAST(r.target_account_id AS TEXT) AS target_account_id, r.comment, r.category, r.rule_ids, r.forwarded,
  r.action_taken_at, r.created_at,
  (SELECT ${dialect.jsonArrayOf('CAST(status_id AS TEXT)')} FROM report_statuses WHERE report_id = r.id) AS status_ids_json`;

export class ReportsRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** The account a report is against: its id as text and its domain (null: local). */
  account(id: string): Promise<{ id: string; domain: string | null } | undefined> {
    return this.ctx.reader.get(`SELECT CAST(id AS TEXT) AS id, domain FROM accounts WHERE id = ?`, [id]);
  }

  /** Stores a report and the statuses it cites (each once) in `trx`; returns its id. */
  async insert(trx: Knex, report: ReportInsert): Promise<string> {
    const rows = await rawRows<{ id: string }>(
      trx,
      `INSERT INTO reports (account_id, target_account_id, comment, category, rule_ids, forwarded, forward_to_domains, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING CAST(id AS TEXT) AS id`,
      [
        report.accountId,
        report.targetAccountId,
        report.comment,
        report.category,
        JSON.stringify(report.ruleIds),
        report.forwarded,
        JSON.stringify(report.forwardToDomains),
        report.createdAt,
      ],
    );
    const id = rows[0].id;
    for (const statusId of new Set(report.statusIds))
      await trx.raw(`INSERT INTO report_statuses (report_id, status_id) VALUES (?, ?)`, [id, statusId]);
    return id;
  }

  row(id: string): Promise<ReportRow | undefined> {
    return this.ctx.reader.get<ReportRow>(`SELECT ${REPORT_COLUMNS} FROM reports WHERE id = ?`, [id]);
  }

  /** Reports matching `filter`, newest first, paged by id. */
  list(filter: ReportFilter, page: PageQuery): Promise<ReviewRow[]> {
    const { sql, params } = cursorPageSql(
      {
        select: reviewColumns(dialectOf(this.ctx.db)),
        from: 'reports r',
        where: `(r.action_taken_at IS NOT NULL) = (?1 = 1) AND r.account_id = coalesce(?2, r.account_id)
          AND r.target_account_id = coalesce(?3, r.target_account_id)`,
        cursor: 'r.id',
      },
      [filter.resolved ? 1 : 0, filter.accountId ?? null, filter.targetAccountId ?? null],
      page,
    );
    return this.ctx.reader.all<ReviewRow>(sql, params);
  }

  async review(id: string): Promise<ReviewRow | undefined> {
    return (
      await this.ctx.reader.all<ReviewRow>(
        `SELECT ${reviewColumns(dialectOf(this.ctx.db))} FROM reports r WHERE r.id = ?`,
        [id],
      )
    )[0];
  }

  /** Sets when action was taken (null: open again). */
  async setActionTakenAt(id: string, at: string | null): Promise<void> {
    await this.ctx.db.raw(`UPDATE reports SET action_taken_at = ? WHERE id = ?`, [at, id]);
  }

  serverRules(): Promise<ServerRule[]> {
    return this.ctx.reader.all<ServerRule>(`SELECT id, text, hint FROM server_rules`);
  }

  /** Which of `ids` are server rules. */
  async existingRules(ids: readonly number[]): Promise<number[]> {
    const rows = await this.ctx.reader.all<{ id: number }>(
      `SELECT id FROM server_rules WHERE id IN (SELECT CAST(ids.value AS BIGINT) FROM ${dialectOf(this.ctx.db).idsTable('ids')})`,
      [idList(ids)],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Which of `ids` are statuses of `accountId`, deleted or not, that `viewerId` may see
   * (statuses/visibility.ts).
   */
  async visibleStatusesOf(accountId: string, ids: readonly string[], viewerId: string): Promise<string[]> {
    const rows = await this.ctx.reader.all<{ id: string }>(
      `SELECT CAST(s.id AS TEXT) AS id FROM statuses s
      WHERE s.id IN (SELECT CAST(ids.value AS BIGINT) FROM ${dialectOf(this.ctx.db).idsTable('ids')})
        AND s.account_id = ?2 AND ${visibleBy('?3')}`,
      // The ids table's bare \`?\` comes first: the first parameter on both engines.
      [idList(ids), accountId, viewerId],
    );
    return rows.map((row) => row.id);
  }
}
