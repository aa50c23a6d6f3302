/**
 * Reports: a local account reports another account and some of its statuses. Soft-deleted
 * statuses stay reportable. The category is stored; remote targets may be forwarded to their
 * domain (federation delivers them). Reporting is rate limited per account.
 */
import type { Knex } from 'knex';
import { notFound, unprocessable } from '../../http/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import { AccountsRepo } from '../accounts/repo.js';
import { FAMILIES, type RateLimitHeaders, type RateLimiter } from '../ratelimit/limiter.js';

export const CATEGORIES = ['spam', 'legal', 'violation', 'other'] as const;
const COMMENT_MAX = 1000;

export interface NewReport {
  accountId: string;
  statusIds: string[];
  comment: string;
  category?: string;
  ruleIds: string[];
  forward: boolean;
  forwardToDomains: string[];
}

export interface ReportRow {
  id: string;
  target_account_id: string;
  status_ids: string;
  rule_ids: string;
  comment: string;
  category: string;
  forwarded: number;
  action_taken_at: string | null;
  created_at: string;
}

export class ReportsService {
  private readonly accounts: AccountsRepo;

  constructor(private readonly ctx: SocialContext, private readonly limiter: RateLimiter) {
    this.accounts = new AccountsRepo(ctx);
  }

  async create(reporterId: string, input: NewReport): Promise<{ report: ReportRow; headers: RateLimitHeaders }> {
    const target = await this.accounts.byId(input.accountId);
    if (!target || target.id === reporterId) throw notFound();
    const category = input.category ?? (input.ruleIds.length ? 'violation' : 'other');
    if (!(CATEGORIES as readonly string[]).includes(category)) throw unprocessable('Validation failed: Category is not included in the list');
    if (input.comment.length > COMMENT_MAX) throw unprocessable(`Validation failed: Comment is too long (maximum is ${COMMENT_MAX} characters)`);
    // Only the target's own statuses, deleted ones included (they stay reportable).
    const statuses = input.statusIds.length
      ? await this.ctx.reader.all<{ id: string }>(`SELECT CAST(id AS TEXT) AS id FROM statuses WHERE account_id = ? AND id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`,
        [target.id, JSON.stringify(input.statusIds)])
      : [];
    if (statuses.length !== new Set(input.statusIds).size) throw notFound();
    // Forwarding concerns remote targets: their domain, plus the domains the reporter names.
    const forwarded = Boolean(target.domain && input.forward);
    const domains = forwarded ? [...new Set([target.domain!, ...input.forwardToDomains].map((d) => d.toLowerCase()))] : [];
    const created = nowIso(this.ctx.now());
    let headers!: RateLimitHeaders;
    const id = await this.ctx.db.transaction(async (trx: Knex) => {
      headers = await this.limiter.record(trx, reporterId, FAMILIES.reports);
      const rows = await trx.raw(`INSERT INTO reports (account_id, target_account_id, status_ids, rule_ids, comment, category, forwarded, forward_to_domains, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING CAST(id AS TEXT) AS id`,
      [reporterId, target.id, JSON.stringify(statuses.map((s) => s.id)), JSON.stringify(input.ruleIds), input.comment, category, forwarded ? 1 : 0,
        JSON.stringify(domains), created]);
      return (rows as Array<{ id: string }>)[0]!.id;
    });
    const report = await this.ctx.reader.get<ReportRow>(`SELECT CAST(id AS TEXT) AS id, CAST(target_account_id AS TEXT) AS target_account_id, status_ids, rule_ids,
      comment, category, forwarded, action_taken_at, created_at FROM reports WHERE id = ?`, [id]);
    return { report: report!, headers };
  }
}
