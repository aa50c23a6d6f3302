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
