/**
 * Per-account action limits (Mastodon's RateLimiter): fixed windows aligned to the epoch, counted
 * inside the action's own transaction so a refused or failed action is never counted.
 * 429 {"error":"Too many requests"} beyond the limit; X-RateLimit-* headers on success.
 */
import type { Knex } from 'knex';
import { rateLimited } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import type { BoundSql } from '../../store/dialect.js';
import { RateLimitsRepo } from './repo.js';

export interface Family {
  name: string;
  limit: number;
  periodMs: number;
}

export const FAMILIES = {
  statuses: { name: 'statuses', limit: 300, periodMs: 3 * 3600_000 },
  follows: { name: 'follows', limit: 400, periodMs: 24 * 3600_000 },
  reports: { name: 'reports', limit: 400, periodMs: 24 * 3600_000 },
} satisfies Record<string, Family>;

export type RateLimitHeaders = Record<'X-RateLimit-Limit' | 'X-RateLimit-Remaining' | 'X-RateLimit-Reset', string>;

export class RateLimiter {
  private readonly repo: RateLimitsRepo;

  constructor(private readonly ctx: SocialContext) {
    this.repo = new RateLimitsRepo(ctx);
  }

  private window(family: Family): { start: number; reset: string } {
    const start = Math.floor(this.ctx.now() / family.periodMs) * family.periodMs;
    // Mastodon prints the reset with six fractional digits.
    const reset = new Date(start + family.periodMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    return { start, reset };
  }

  /**
   * Counts one action in `trx`; throws 429 (nothing counted) when the window is full. `beside`: the
   * action's own last change, sent with the count (RateLimitsRepo.add).
   */
  async record(trx: Knex, accountId: string, family: Family, beside?: BoundSql): Promise<RateLimitHeaders> {
    const { start, reset } = this.window(family);
    const count = await this.repo.add(trx, accountId, family.name, start, family.limit, beside);
    if (count === null) throw rateLimited(headers(family, 0, reset));
    // The window's first action: the older windows are of no use any more.
    if (count === 1) await this.repo.dropOlder(trx, accountId, family.name, start);
    return headers(family, family.limit - count, reset);
  }

  /** The headers without counting (actions that show the family but are not counted, like reblogs). */
  async peek(accountId: string, family: Family): Promise<RateLimitHeaders> {
    const { start, reset } = this.window(family);
    return headers(family, family.limit - (await this.repo.peek(accountId, family.name, start)), reset);
  }
}

function headers(family: Family, remaining: number, reset: string): RateLimitHeaders {
  return {
    'X-RateLimit-Limit': String(family.limit),
    'X-RateLimit-Remaining': String(Math.max(0, remaining)),
    'X-RateLimit-Reset': reset,
  };
}
