/**
 * Scheduled statuses, Mastodon's rules: `scheduled_at` at least 5 minutes ahead (one already past
 * posts at once), at most 300 waiting and 25 on one day per account; checked like a post when
 * scheduled, with its media held for it; posted by a job once its time has come (a post that can
 * no longer be made, its reply gone say, is dropped with a log line, as Mastodon drops it).
 */
import { unprocessable, notFound } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import type { MediaService } from '../media/service.js';
import type { NewStatus, StatusesService } from '../statuses/service.js';
import { nowIso } from '../time.js';
import { ScheduledRepo, type ScheduledRow } from './repo.js';

export const MIN_OFFSET_MS = 5 * 60_000;
export const TOTAL_LIMIT = 300;
export const DAILY_LIMIT = 25;

/** What is kept to post later: the posting parameters, as Mastodon's ScheduledStatus#params. */
export interface ScheduledParams {
  text: string;
  media_ids: string[] | null;
  sensitive: boolean | null;
  spoiler_text: string | null;
  visibility: string | null;
  in_reply_to_id: string | null;
  language: string | null;
  application_id: string | null;
  /** Mastodon's shape; absent in rows kept before polls. */
  poll?: { options: string[]; expires_in: number; multiple: boolean; hide_totals: boolean } | null;
}

export class ScheduledStatusesService {
  readonly repo: ScheduledRepo;

  constructor(
    private readonly ctx: SocialContext,
    private readonly statuses: StatusesService,
    private readonly media: MediaService,
  ) {
    this.repo = new ScheduledRepo(ctx);
  }

  // The reads routes answer with, as the repo makes them.
  page(...args: Parameters<ScheduledRepo['page']>): ReturnType<ScheduledRepo['page']> {
    return this.repo.page(...args);
  }

  /** The time asked for: null when it has passed (post now); 422 when it is not a date. */
  when(scheduledAt: string): Date | null {
    const at = new Date(scheduledAt);
    if (!/^\d{4}-\d\d-\d\d/.test(scheduledAt) || Number.isNaN(at.getTime()))
      throw unprocessable('Validation failed: Scheduled at is invalid');
    return at.getTime() <= this.ctx.now() ? null : at;
  }

  async schedule(authorId: string, input: NewStatus, at: Date): Promise<ScheduledRow> {
    this.checkOffset(at);
    await this.statuses.check(authorId, input);
    await this.checkLimits(authorId, at);
    const params: ScheduledParams = {
      text: input.status ?? '',
      media_ids: input.media_ids?.length ? [...new Set(input.media_ids)] : null,
      sensitive: input.sensitive ?? null,
      spoiler_text: input.spoiler_text ?? null,
      visibility: input.visibility ?? null,
      in_reply_to_id: input.in_reply_to_id ?? null,
      language: input.language ?? null,
      application_id: input.appId,
      poll: input.poll
        ? {
            options: input.poll.options,
            expires_in: input.poll.expiresIn,
            multiple: input.poll.multiple,
            hide_totals: input.poll.hideTotals,
          }
        : null,
    };
    const id = await this.ctx.db.transaction(async (trx) => {
      const inserted = await this.repo.insert(
        trx,
        { account_id: authorId, scheduled_at: at.toISOString(), params: JSON.stringify(params) },
        nowIso(this.ctx.now()),
      );
      if (params.media_ids) await this.media.reserve(trx, inserted, authorId, params.media_ids);
      return inserted;
    });
    return this.get(authorId, id);
  }

  async get(accountId: string, id: string): Promise<ScheduledRow> {
    const row = await this.repo.one(accountId, id);
    if (!row) throw notFound();
    return row;
  }

  async reschedule(accountId: string, id: string, scheduledAt: string | undefined): Promise<ScheduledRow> {
    const row = await this.get(accountId, id);
    if (scheduledAt === undefined) return row;
    const at = this.when(scheduledAt) ?? new Date(this.ctx.now());
    this.checkOffset(at);
    if (row.scheduled_at.slice(0, 10) !== at.toISOString().slice(0, 10)) await this.checkLimits(accountId, at);
    await this.repo.reschedule(accountId, id, at.toISOString());
    return this.get(accountId, id);
  }

  async remove(accountId: string, id: string): Promise<void> {
    if (!(await this.repo.remove(accountId, id))) throw notFound();
  }

  /** Posts what is due. Each is deleted first, so a crash never posts it twice. */
  async publishDue(): Promise<number> {
    let posted = 0;
    for (const row of await this.repo.due(nowIso(this.ctx.now()))) {
      if (!(await this.repo.remove(row.account_id, row.id)) || !row.may_post) continue;
      const params = JSON.parse(row.params) as ScheduledParams;
      try {
        await this.statuses.create(row.account_id, {
          status: params.text,
          media_ids: params.media_ids ?? undefined,
          sensitive: params.sensitive ?? undefined,
          spoiler_text: params.spoiler_text ?? undefined,
          visibility: params.visibility ?? undefined,
          in_reply_to_id: params.in_reply_to_id ?? undefined,
          language: params.language ?? undefined,
          appId: params.application_id,
          poll: params.poll
            ? {
                options: params.poll.options,
                expiresIn: params.poll.expires_in,
                multiple: params.poll.multiple,
                hideTotals: params.poll.hide_totals,
              }
            : undefined,
        });
        posted += 1;
      } catch (error) {
        this.ctx.log.warn('scheduled status dropped', {
          scheduled_status_id: row.id,
          account_id: row.account_id,
          error: (error as Error).message,
        });
      }
    }
    return posted;
  }

  private checkOffset(at: Date): void {
    if (at.getTime() < this.ctx.now() + MIN_OFFSET_MS)
      throw unprocessable('Validation failed: Scheduled at The scheduled date must be in the future');
  }

  private async checkLimits(accountId: string, at: Date): Promise<void> {
    const { total, day } = await this.repo.counts(accountId, at.toISOString());
    if (total >= TOTAL_LIMIT)
      throw unprocessable(`Validation failed: You have exceeded the limit of ${TOTAL_LIMIT} scheduled posts`);
    if (day >= DAILY_LIMIT)
      throw unprocessable(`Validation failed: You have exceeded the limit of ${DAILY_LIMIT} scheduled posts for today`);
  }
}
