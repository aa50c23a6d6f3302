/** SQL behind e-mail confirmation: a user's address, confirmation state and token (stored hashed). */
import type { SocialContext } from '../context.js';
import { rawRows } from '../../store/dialect.js';

export interface UserConfirmation {
  account_id: string;
  email: string;
  confirmed_at: string | null;
  created_by_app_id: string | null;
  username: string;
}

export class EmailsRepo {
  constructor(private readonly ctx: SocialContext) {}

  user(accountId: string): Promise<UserConfirmation | undefined> {
    return this.ctx.reader.get<UserConfirmation>(
      `SELECT CAST(u.account_id AS TEXT) AS account_id, u.email, u.confirmed_at, CAST(u.created_by_app_id AS TEXT) AS created_by_app_id, a.username
      FROM users u JOIN accounts a ON a.id = u.account_id WHERE u.account_id = ?`,
      [accountId],
    );
  }

  /** Another user already has the address (any case). */
  async takenByAnother(email: string, accountId: string): Promise<boolean> {
    const row = await this.ctx.reader.get(
      `SELECT 1 AS x FROM users WHERE lower(email) = lower(?) AND account_id != ?`,
      [email, accountId],
    );
    return row !== undefined;
  }

  async setEmail(accountId: string, email: string): Promise<void> {
    await this.ctx.db.raw(`UPDATE users SET email = ? WHERE account_id = ?`, [email, accountId]);
  }

  async setConfirmationToken(accountId: string, tokenHash: string, sentAt: string): Promise<void> {
    await this.ctx.db.raw(`UPDATE users SET confirmation_token = ?, confirmation_sent_at = ? WHERE account_id = ?`, [
      tokenHash,
      sentAt,
      accountId,
    ]);
  }

  /** Confirms the unconfirmed user holding the token; true when there was one. */
  async confirm(tokenHash: string, at: string): Promise<boolean> {
    const rows = await rawRows(
      this.ctx.db,
      `UPDATE users SET confirmed_at = ?, confirmation_token = NULL WHERE confirmation_token = ? AND confirmed_at IS NULL RETURNING account_id`,
      [at, tokenHash],
    );
    return rows.length > 0;
  }
}
