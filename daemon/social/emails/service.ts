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
import { EmailsRepo, type UserConfirmation } from './repo.js';

export interface MailSender {
  send(to: string, subject: string, text: string): Promise<void>;
}

export class EmailsService {
  private readonly repo: EmailsRepo;

  constructor(
    private readonly ctx: SocialContext,
    private readonly mailer: MailSender | null,
  ) {
    this.repo = new EmailsRepo(ctx);
  }

  get required(): boolean {
    return this.mailer !== null;
  }

  private user(accountId: string): Promise<UserConfirmation | undefined> {
    return this.repo.user(accountId);
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
      if (await this.repo.takenByAnother(email, accountId))
        throw unprocessable('Validation failed: Email has already been taken');
      await this.repo.setEmail(accountId, email);
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
    await this.repo.setConfirmationToken(accountId, hash(token), nowIso(this.ctx.now()));
    const link = `${this.ctx.config.baseUrl}/auth/confirmation?confirmation_token=${token}`;
    await this.mailer.send(
      email,
      'Confirm your e-mail address',
      `Hello ${username},\n\nplease confirm your e-mail address for ${this.ctx.localDomain} by opening this link:\n\n${link}\n`,
    );
  }

  /** GET /auth/confirmation: true when the token matched an account. */
  async confirm(token: string): Promise<boolean> {
    return this.repo.confirm(hash(token), nowIso(this.ctx.now()));
  }
}

function isConfirmed(user: UserConfirmation, required: boolean): boolean {
  return !required || user.confirmed_at !== null || user.created_by_app_id === null;
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
