/**
 * E-mail confirmation: with an SMTP server configured, accounts that sign up through an app get
 * a confirmation link by mail and may ask for it again (only the app they signed up with, only
 * while unconfirmed, optionally changing the address). Without SMTP the box demands nothing: every
 * account counts as confirmed. Accounts made with the admin tool are confirmed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { unprocessable, forbidden } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';

interface UserConfirmation {
  account_id: string;
  email: string;
  confirmed_at: string | null;
  created_by_app_id: string | null;
  username: string;
}

export interface MailSender {
  send(to: string, subject: string, text: string): Promise<void>;
}

export class EmailsService {
  constructor(
    private readonly ctx: SocialContext,
    private readonly mailer: MailSender | null,
  ) {}

  get required(): boolean {
    return this.mailer !== null;
  }

  private user(accountId: string): Promise<UserConfirmation | undefined> {
    return this.ctx.reader.get<UserConfirmation>(
      `SELECT CAST(u.account_id AS TEXT) AS account_id, u.email, u.confirmed_at, CAST(u.created_by_app_id AS TEXT) AS created_by_app_id, a.username
      FROM users u JOIN accounts a ON a.id = u.account_id WHERE u.account_id = ?`,
      [accountId],
    );
  }

  async confirmed(accountId: string): Promise<boolean> {
    const user = await this.user(accountId);
    return Boolean(user) && isConfirmed(user!, this.required);
  }

  /** POST /api/v1/emails/confirmations. */
  async resend(accountId: string, appId: string | null, email: string | undefined): Promise<void> {
    const user = await this.user(accountId);
    if (!user || user.created_by_app_id === null || user.created_by_app_id !== appId) {
      throw forbidden('This method is only available to the application the user originally signed-up with');
    }
    if (isConfirmed(user, this.required))
      throw forbidden('This method is only available while the e-mail is awaiting confirmation');
    let address = user.email;
    if (email !== undefined && email !== user.email) {
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw unprocessable('Validation failed: Email is invalid');
      const taken = await this.ctx.reader.get(
        `SELECT 1 AS x FROM users WHERE lower(email) = lower(?) AND account_id != ?`,
        [email, accountId],
      );
      if (taken) throw unprocessable('Validation failed: Email has already been taken');
      await this.ctx.db.raw(`UPDATE users SET email = ? WHERE account_id = ?`, [email, accountId]);
      address = email;
    }
    await this.sendConfirmation(accountId, address, user.username);
  }

  /** After a sign-up through an app (the daemon listens for new accounts). */
  async onAccountCreated(accountId: string): Promise<void> {
    if (!this.mailer) return;
    const user = await this.user(accountId);
    if (user && user.created_by_app_id !== null && !user.confirmed_at)
      await this.sendConfirmation(accountId, user.email, user.username);
  }

  private async sendConfirmation(accountId: string, email: string, username: string): Promise<void> {
    if (!this.mailer) return;
    const token = randomBytes(24).toString('base64url');
    await this.ctx.db.raw(`UPDATE users SET confirmation_token = ?, confirmation_sent_at = ? WHERE account_id = ?`, [
      hash(token),
      nowIso(this.ctx.now()),
      accountId,
    ]);
    const link = `${this.ctx.config.baseUrl}/auth/confirmation?confirmation_token=${token}`;
    await this.mailer.send(
      email,
      'Confirm your e-mail address',
      `Hello ${username},\n\nplease confirm your e-mail address for ${this.ctx.localDomain} by opening this link:\n\n${link}\n`,
    );
  }

  /** GET /auth/confirmation: true when the token matched an account. */
  async confirm(token: string): Promise<boolean> {
    const rows = await this.ctx.db.raw<unknown[]>(
      `UPDATE users SET confirmed_at = ?, confirmation_token = NULL WHERE confirmation_token = ? AND confirmed_at IS NULL RETURNING account_id`,
      [nowIso(this.ctx.now()), hash(token)],
    );
    return rows.length > 0;
  }
}

function isConfirmed(user: UserConfirmation, required: boolean): boolean {
  return !required || user.confirmed_at !== null || user.created_by_app_id === null;
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
