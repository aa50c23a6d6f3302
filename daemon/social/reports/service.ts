/**
 * Reports: against an account, citing its statuses (soft-deleted ones stay reportable, and a
 * report's statuses cannot be removed from the database while it exists), with a category (spam,
 * legal, violation with rule ids, other), a comment, and domains to forward to; rate limited.
 */
import { notFound, unprocessable } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import { FAMILIES, type RateLimitHeaders, type RateLimiter } from '../ratelimit/limiter.js';
import { visibleBy } from '../statuses/visibility.js';
import { cursorPageSql, type PageQuery } from '../store/paging.js';

type ReviewRow = Omit<ReviewedReport, 'status_ids' | 'rules'> & { status_ids_json: string };

export const CATEGORIES = ['spam', 'legal', 'violation', 'other'] as const;
export const MAX_COMMENT = 1000;

export interface NewReport {
  accountId?: string;
  statusIds: string[];
  comment?: string;
  forward: boolean;
  forwardToDomains: string[];
  category?: string;
  ruleIds: string[];
}

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

/** A report as the owner reviews it: who reported, and which statuses and rules it cites. */
export interface ReviewedReport extends ReportRow {
  account_id: string;
  status_ids: string[];
  rules: Array<{ id: string; text: string; hint: string }>;
}

/** Which reports the owner lists: resolved or not, and by reporter or reported account. */
export interface ReportFilter {
  resolved: boolean;
  accountId?: string;
  targetAccountId?: string;
}

const REVIEW_COLUMNS = `CAST(r.id AS TEXT) AS id, CAST(r.account_id AS TEXT) AS account_id,
  CAST(r.target_account_id AS TEXT) AS target_account_id, r.comment, r.category, r.rule_ids, r.forwarded,
  r.action_taken_at, r.created_at,
  (SELECT json_group_array(CAST(status_id AS TEXT)) FROM report_statuses WHERE report_id = r.id) AS status_ids_json`;

export class ReportsService {
  constructor(
    private readonly ctx: SocialContext,
    private readonly limiter: RateLimiter,
  ) {}

  async create(
    reporterId: string,
    input: NewReport,
  ): Promise<{ row: ReportRow; statusIds: string[]; headers: RateLimitHeaders }> {
    if (!input.accountId) throw unprocessable("Validation failed: Account can't be blank");
    const target = await this.ctx.reader.get<{ id: string; domain: string | null }>(
      `SELECT CAST(id AS TEXT) AS id, domain FROM accounts WHERE id = ?`,
      [input.accountId],
    );
    if (!target) throw notFound();
    if (target.id === reporterId) throw unprocessable('Validation failed: You cannot report yourself');
    const category = input.category ?? (input.ruleIds.length ? 'violation' : 'other');
    if (!(CATEGORIES as readonly string[]).includes(category))
      throw unprocessable('Validation failed: Category is not included in the list');
    const comment = input.comment ?? '';
    if ([...comment].length > MAX_COMMENT)
      throw unprocessable(`Validation failed: Comment is too long (maximum is ${MAX_COMMENT} characters)`);
    const ruleIds = category === 'violation' ? await this.checkRules(input.ruleIds) : [];
    const statusIds = await this.checkStatuses(reporterId, target.id, input.statusIds);
    const domains = target.domain
      ? input.forwardToDomains.map((d) => d.toLowerCase()).filter((d) => d === target.domain!.toLowerCase())
      : [];
    const forwarded = input.forward && target.domain !== null;
    let id = '';
    let headers!: RateLimitHeaders;
    await this.ctx.db.transaction(async (trx) => {
      headers = await this.limiter.record(trx, reporterId, FAMILIES.reports);
      const rows = await trx.raw<Array<{ id: string }>>(
        `INSERT INTO reports (account_id, target_account_id, comment, category, rule_ids, forwarded, forward_to_domains, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING CAST(id AS TEXT) AS id`,
        [
          reporterId,
          target.id,
          comment,
          category,
          JSON.stringify(ruleIds),
          forwarded ? 1 : 0,
          JSON.stringify(domains),
          nowIso(this.ctx.now()),
        ],
      );
      id = rows[0].id;
      for (const statusId of statusIds)
        await trx.raw(`INSERT INTO report_statuses (report_id, status_id) VALUES (?, ?)`, [id, statusId]);
    });
    if (forwarded) this.ctx.events.emit('report.forwarded', { reportId: id });
    const row = (await this.ctx.reader.get<ReportRow>(
      `SELECT CAST(id AS TEXT) AS id, CAST(target_account_id AS TEXT) AS target_account_id, comment, category, rule_ids, forwarded,
      action_taken_at, created_at FROM reports WHERE id = ?`,
      [id],
    ))!;
    return { row, statusIds, headers };
  }

  /** The owner's list of reports, newest first, paged by id (Mastodon's admin reports). */
  async list(filter: ReportFilter, page: PageQuery): Promise<ReviewedReport[]> {
    const { sql, params } = cursorPageSql(
      {
        select: REVIEW_COLUMNS,
        from: 'reports r',
        where: `(r.action_taken_at IS NOT NULL) = ?1 AND r.account_id = coalesce(?2, r.account_id)
          AND r.target_account_id = coalesce(?3, r.target_account_id)`,
        cursor: 'r.id',
      },
      [filter.resolved ? 1 : 0, filter.accountId ?? null, filter.targetAccountId ?? null],
      page,
    );
    return this.reviewed(await this.ctx.reader.all(sql, params));
  }

  async get(id: string): Promise<ReviewedReport> {
    const rows = await this.ctx.reader.all<ReviewRow>(`SELECT ${REVIEW_COLUMNS} FROM reports r WHERE r.id = ?`, [id]);
    if (rows.length === 0) throw notFound();
    return (await this.reviewed(rows))[0];
  }

  /** Marks a report resolved (action taken) or open again. */
  async setResolved(id: string, resolved: boolean): Promise<ReviewedReport> {
    await this.get(id);
    await this.ctx.db.raw(`UPDATE reports SET action_taken_at = ? WHERE id = ?`, [
      resolved ? nowIso(this.ctx.now()) : null,
      id,
    ]);
    return this.get(id);
  }

  private async reviewed(rows: ReviewRow[]): Promise<ReviewedReport[]> {
    const rules = new Map(
      (
        await this.ctx.reader.all<{ id: number; text: string; hint: string }>(`SELECT id, text, hint FROM server_rules`)
      ).map((rule) => [rule.id, { id: String(rule.id), text: rule.text, hint: rule.hint }]),
    );
    return rows.map(({ status_ids_json, ...row }) => ({
      ...row,
      status_ids: JSON.parse(status_ids_json) as string[],
      rules: (JSON.parse(row.rule_ids) as number[]).flatMap((ruleId) => rules.get(ruleId) ?? []),
    }));
  }

  /**
   * A report a peer forwarded (a Flag) against local account `targetId`, from `reporterId` (the
   * peer's actor, usually its instance actor): stored as a local user's report is, as "other".
   */
  async receive(reporterId: string, targetId: string, statusIds: readonly string[], comment: string): Promise<string> {
    let id = '';
    await this.ctx.db.transaction(async (trx) => {
      const rows = await trx.raw<Array<{ id: string }>>(
        `INSERT INTO reports (account_id, target_account_id, comment, category, rule_ids, forwarded, forward_to_domains, created_at)
        VALUES (?, ?, ?, 'other', '[]', 0, '[]', ?) RETURNING CAST(id AS TEXT) AS id`,
        [reporterId, targetId, [...comment].slice(0, MAX_COMMENT).join(''), nowIso(this.ctx.now())],
      );
      id = rows[0].id;
      for (const statusId of new Set(statusIds))
        await trx.raw(`INSERT INTO report_statuses (report_id, status_id) VALUES (?, ?)`, [id, statusId]);
    });
    return id;
  }

  /**
   * The cited statuses must be the target's, deleted or not (Mastodon's with_discarded), and ones
   * the reporter may see (statuses/visibility.ts): 404 tells nothing of a status hidden from them.
   */
  private async checkStatuses(reporterId: string, targetId: string, ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const rows = await this.ctx.reader.all<{ id: string }>(
      `SELECT CAST(s.id AS TEXT) AS id FROM statuses s
      WHERE s.account_id = ?1 AND s.id IN (SELECT CAST(value AS INTEGER) FROM json_each(?2)) AND ${visibleBy('?3')}`,
      [targetId, JSON.stringify(unique), reporterId],
    );
    if (rows.length !== unique.length) throw notFound();
    return unique;
  }

  private async checkRules(ids: string[]): Promise<number[]> {
    const wanted = [...new Set(ids.map(Number))];
    if (wanted.length === 0 || wanted.some((n) => !Number.isInteger(n)))
      throw unprocessable('Validation failed: Rule ids must name the broken rules');
    const rows = await this.ctx.reader.all<{ id: number }>(
      `SELECT id FROM server_rules WHERE id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(wanted)],
    );
    if (rows.length !== wanted.length) throw unprocessable('Validation failed: Rule ids contain an unknown rule');
    return wanted;
  }
}
