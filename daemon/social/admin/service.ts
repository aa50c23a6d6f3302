/**
 * The owner's moderation of accounts: approve or reject pending registrations, silence, suspend
 * (and undo), disable logins. The owner's own account cannot be acted on.
 */
import { notFound, unprocessable, forbidden } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import type { AdminRepo, AdminRow } from './repo.js';

export const ACTIONS = ['none', 'sensitive', 'disable', 'silence', 'suspend'] as const;

export class AdminAccountsService {
  constructor(
    private readonly ctx: SocialContext,
    private readonly repo: AdminRepo,
  ) {}

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
    await this.repo.approve(id);
    this.ctx.events.emit('account.updated', { accountId: id });
    return this.get(id);
  }

  /** Rejecting a pending registration removes it. */
  async reject(id: string): Promise<AdminRow> {
    const row = await this.target(id);
    if (row.approved !== 0) throw forbidden('This action is not allowed');
    await this.repo.remove(id);
    return row;
  }

  async action(id: string, type: string): Promise<void> {
    if (!(ACTIONS as readonly string[]).includes(type))
      throw unprocessable('Validation failed: Type is not included in the list');
    await this.target(id);
    const now = nowIso(this.ctx.now());
    if (type === 'silence') await this.repo.setSilencedAt(id, now);
    if (type === 'suspend') await this.repo.setSuspendedAt(id, now);
    if (type === 'disable') await this.repo.setDisabled(id, true);
    this.ctx.events.emit('account.updated', { accountId: id });
  }

  async undo(id: string, what: 'unsilence' | 'unsuspend' | 'enable'): Promise<AdminRow> {
    await this.target(id);
    if (what === 'unsilence') await this.repo.setSilencedAt(id, null);
    if (what === 'unsuspend') await this.repo.setSuspendedAt(id, null);
    if (what === 'enable') await this.repo.setDisabled(id, false);
    this.ctx.events.emit('account.updated', { accountId: id });
    return this.get(id);
  }
}
