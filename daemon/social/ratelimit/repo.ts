/** SQL behind the per-account action limits: one count per (account, family, window). */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { rawRows } from '../../store/dialect.js';

export class RateLimitsRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** The window's count so far, read in the action's transaction. */
  async count(trx: Knex, accountId: string, family: string, windowStart: number): Promise<number> {
    const rows = await rawRows<{ count: number }>(
      trx,
      `SELECT count FROM rate_limits WHERE account_id = ? AND family = ? AND window_start = ?`,
      [accountId, family, windowStart],
    );
    return rows[0]?.count ?? 0;
  }

  /** The window's count outside any transaction (headers shown without counting). */
  async peek(accountId: string, family: string, windowStart: number): Promise<number> {
    const row = await this.ctx.reader.get<{ count: number }>(
      `SELECT count FROM rate_limits WHERE account_id = ? AND family = ? AND window_start = ?`,
      [accountId, family, windowStart],
    );
    return row?.count ?? 0;
  }

  /** Counts one more in the window and drops the account's older windows of the family. */
  async add(trx: Knex, accountId: string, family: string, windowStart: number): Promise<void> {
    await trx.raw(
      `INSERT INTO rate_limits (account_id, family, window_start, count) VALUES (?, ?, ?, 1)
      ON CONFLICT (account_id, family, window_start) DO UPDATE SET count = rate_limits.count + 1`,
      [accountId, family, windowStart],
    );
    await trx.raw(`DELETE FROM rate_limits WHERE account_id = ? AND family = ? AND window_start < ?`, [
      accountId,
      family,
      windowStart,
    ]);
  }
}
