/**
 * Reports: against an account, citing its statuses (soft-deleted ones stay reportable, and a
 * report's statuses cannot be removed from the database while it exists), with a category (spam,
 * legal, violation with rule ids, other), a comment, and domains to forward to; rate limited.
 */
import { notFound, unprocessable } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import { FAMILIES, type RateLimitHeaders, type RateLimiter } from '../ratelimit/limiter.js';
import type { PageQuery } from '../store/paging.js';
import type { ReportFilter, ReportRow, ReportsRepo, ReviewRow } from './repo.js';

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

/** A report as the owner reviews it: who reported, and which statuses and rules it cites. */
export interface ReviewedReport extends ReportRow {
  account_id: string;
  status_ids: string[];
  rules: Array<{ id: string; text: string; hint: string }>;
}

export class ReportsService {
  constructor(
    private readonly ctx: SocialContext,
    private readonly repo: ReportsRepo,
    private readonly limiter: RateLimiter,
  ) {}

  async create(
    reporterId: string,
    input: NewReport,
  ): Promise<{ row: ReportRow; statusIds: string[]; headers: RateLimitHeaders }> {
    if (!input.accountId) throw unprocessable("Validation failed: Account can't be blank");
    const target = await this.repo.account(input.accountId);
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
    const { id, headers } = await this.ctx.db.transaction(async (trx) => {
      const counted = await this.limiter.record(trx, reporterId, FAMILIES.reports);
      const inserted = await this.repo.insert(trx, {
        accountId: reporterId,
        targetAccountId: target.id,
        comment,
        category,
        ruleIds,
        forwarded,
        forwardToDomains: domains,
        statusIds,
        createdAt: nowIso(this.ctx.now()),
      });
      return { id: inserted, headers: counted };
    });
    if (forwarded) this.ctx.events.emit('report.forwarded', { reportId: id });
    const row = (await this.repo.row(id))!;
    return { row, statusIds, headers };
  }

  /** The owner's list of reports, newest first, paged by id (Mastodon's admin reports). */
  async list(filter: ReportFilter, page: PageQuery): Promise<ReviewedReport[]> {
    return this.reviewed(await this.repo.list(filter, page));
  }

  async get(id: string): Promise<ReviewedReport> {
    const row = await this.repo.review(id);
    if (!row) throw notFound();
    return (await this.reviewed([row]))[0];
  }

  /** Marks a report resolved (action taken) or open again. */
  async setResolved(id: string, resolved: boolean): Promise<ReviewedReport> {
    await this.get(id);
    await this.repo.setActionTakenAt(id, resolved ? nowIso(this.ctx.now()) : null);
    return this.get(id);
  }

  private async reviewed(rows: ReviewRow[]): Promise<ReviewedReport[]> {
    const rules = new Map(
      (await this.repo.serverRules()).map((rule) => [
        rule.id,
        { id: String(rule.id), text: rule.text, hint: rule.hint },
      ]),
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
  receive(reporterId: string, targetId: string, statusIds: readonly string[], comment: string): Promise<string> {
    return this.ctx.db.transaction((trx) =>
      this.repo.insert(trx, {
        accountId: reporterId,
        targetAccountId: targetId,
        comment: [...comment].slice(0, MAX_COMMENT).join(''),
        category: 'other',
        ruleIds: [],
        forwarded: false,
        forwardToDomains: [],
        statusIds,
        createdAt: nowIso(this.ctx.now()),
      }),
    );
  }

  /**
   * The cited statuses must be the target's, deleted or not (Mastodon's with_discarded), and ones
   * the reporter may see (statuses/visibility.ts): 404 tells nothing of a status hidden from them.
   */
  private async checkStatuses(reporterId: string, targetId: string, ids: string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const found = await this.repo.visibleStatusesOf(targetId, unique, reporterId);
    if (found.length !== unique.length) throw notFound();
    return unique;
  }

  private async checkRules(ids: string[]): Promise<number[]> {
    const wanted = [...new Set(ids.map(Number))];
    if (wanted.length === 0 || wanted.some((n) => !Number.isInteger(n)))
      throw unprocessable('Validation failed: Rule ids must name the broken rules');
    if ((await this.repo.existingRules(wanted)).length !== wanted.length)
      throw unprocessable('Validation failed: Rule ids contain an unknown rule');
    return wanted;
  }
}
