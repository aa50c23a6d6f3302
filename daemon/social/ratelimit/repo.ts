/** SQL behind the per-account action limits: one count per (account, family, window). */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectOf, rowsOfLast, type BoundSql } from '../../store/dialect.js';

export class RateLimitsRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** The window's count outside any transaction (headers shown without counting). */
  async peek(accountId: string, family: string, windowStart: number): Promise<number> {
    const row = await this.ctx.reader.get<{ count: number }>(
      `SELECT count FROM rate_limits WHERE account_id = ? AND family = ? AND window_start = ?`,
      [accountId, family, windowStart],
    );
    return row?.count ?? 0;
  }

  /**
   * Counts one more in the window unless it holds `limit` already; the window's count after it, or
   * null when it was full (nothing counted). One statement: the row's lock orders concurrent actions.
   * `beside`: a change sent with it (in the same statement where the engine can), whose row lock is
   * then held only from this statement on, like the window's (the caller rolls it back on null).
   */
  async add(
    trx: Knex,
    accountId: string,
    family: string,
    windowStart: number,
    limit: number,
    beside?: BoundSql,
  ): Promise<number | null> {
    const count: BoundSql = {
      sql: `INSERT INTO rate_limits (account_id, family, window_start, count) VALUES (?, ?, ?, 1)
      ON CONFLICT (account_id, family, window_start) DO UPDATE SET count = rate_limits.count + 1
      WHERE rate_limits.count < ? RETURNING count`,
      bindings: [accountId, family, windowStart, limit],
    };
    const rows = await rowsOfLast<{ count: number }>(trx, beside ? dialectOf(trx).withWrite(beside, count) : [count]);
    return rows[0]?.count ?? null;
  }

  /** Drops the account's windows of the family older than `windowStart` (of no use once it began). */
  async dropOlder(trx: Knex, accountId: string, family: string, windowStart: number): Promise<void> {
    await trx.raw(`DELETE FROM rate_limits WHERE account_id = ? AND family = ? AND window_start < ?`, [
      accountId,
      family,
      windowStart,
    ]);
  }
}
