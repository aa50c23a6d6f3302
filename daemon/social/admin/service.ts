/**
 * The owner's moderation of accounts: approve or reject pending registrations, silence, suspend
 * (and undo), disable logins. The owner's own account cannot be acted on.
 */
import { notFound, unprocessable, forbidden } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import { AdminRepo, type AdminRow } from './repo.js';

export const ACTIONS = ['none', 'sensitive', 'disable', 'silence', 'suspend'] as const;

export class AdminAccountsService {
  readonly repo: AdminRepo;

  constructor(private readonly ctx: SocialContext) {
    this.repo = new AdminRepo(ctx);
  }

  // The reads routes answer with, as the repo makes them.
  list(...args: Parameters<AdminRepo['list']>): ReturnType<AdminRepo['list']> {
    return this.repo.list(...args);
  }

  /** The accounts `ids` that exist (a report's reporter and target, say), in one read. */
  many(ids: readonly string[]): Promise<AdminRow[]> {
    return this.repo.many(ids);
  }

  async get(id: string): Promise<AdminRow> {
    const row = await this.repo.one(id);
    if (!row) throw notFound();
    return row;
  }

  private async target(id: string): Promise<AdminRow> {
    const row = await this.get(id);
    if (row.role === 'owner') throw forbidden('This action is not allowed');
    return row;
  }

  async approve(id: string): Promise<AdminRow> {
    const row = await this.target(id);
    if (row.approved !== 0) throw forbidden('This action is not allowed');
    await this.ctx.db.raw(`UPDATE users SET approved = 1 WHERE account_id = ?`, [id]);
    this.ctx.events.emit('account.updated', { accountId: id });
    return this.get(id);
  }

  /** Rejecting a pending registration removes it. */
  async reject(id: string): Promise<AdminRow> {
    const row = await this.target(id);
    if (row.approved !== 0) throw forbidden('This action is not allowed');
    await this.ctx.db.raw(`DELETE FROM accounts WHERE id = ?`, [id]);
    return row;
  }

  async action(id: string, type: string): Promise<void> {
    if (!(ACTIONS as readonly string[]).includes(type))
      throw unprocessable('Validation failed: Type is not included in the list');
    await this.target(id);
    const now = nowIso(this.ctx.now());
    if (type === 'silence') await this.ctx.db.raw(`UPDATE accounts SET silenced_at = ? WHERE id = ?`, [now, id]);
    if (type === 'suspend') await this.ctx.db.raw(`UPDATE accounts SET suspended_at = ? WHERE id = ?`, [now, id]);
    if (type === 'disable') await this.ctx.db.raw(`UPDATE users SET disabled = 1 WHERE account_id = ?`, [id]);
    this.ctx.events.emit('account.updated', { accountId: id });
  }

  async undo(id: string, what: 'unsilence' | 'unsuspend' | 'enable'): Promise<AdminRow> {
    await this.target(id);
    if (what === 'unsilence') await this.ctx.db.raw(`UPDATE accounts SET silenced_at = NULL WHERE id = ?`, [id]);
    if (what === 'unsuspend') await this.ctx.db.raw(`UPDATE accounts SET suspended_at = NULL WHERE id = ?`, [id]);
    if (what === 'enable') await this.ctx.db.raw(`UPDATE users SET disabled = 0 WHERE account_id = ?`, [id]);
    this.ctx.events.emit('account.updated', { accountId: id });
    return this.get(id);
  }
}
