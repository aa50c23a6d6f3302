/**
 * Notification filtering: the verdict on each notification about to be stored, the account's
 * policy (read and changed), and its requests (accepted: the sender is let through and what was
 * held back shows; dismissed: the request goes, and one by one also what it held back, as
 * Mastodon's single and bulk dismissals differ).
 */
import { notFound, unprocessable } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import type { PageQuery } from '../store/paging.js';
import { nowIso } from '../time.js';
import { NotificationPolicyRepo, type RequestRow } from './repo.js';
import { POLICY_FIELDS, verdict, type Policy, type PolicyChoice, type Verdict } from './rules.js';

const CHOICES: readonly PolicyChoice[] = ['accept', 'filter', 'drop'];

export class NotificationPolicyService {
  readonly repo: NotificationPolicyRepo;

  constructor(private readonly ctx: SocialContext) {
    this.repo = new NotificationPolicyRepo(ctx);
  }

  async verdict(recipientId: string, senderId: string, type: string, statusId: string | null): Promise<Verdict> {
    const now = this.ctx.now();
    const read = await this.repo.facts(recipientId, senderId, statusId, nowIso(now));
    return read ? verdict(type, read.facts, read.policy, now) : 'drop';
  }

  async policy(
    accountId: string,
  ): Promise<Policy & { summary: Awaited<ReturnType<NotificationPolicyRepo['summary']>> }> {
    const [policy, summary] = await Promise.all([this.repo.policy(accountId), this.repo.summary(accountId)]);
    return { ...policy, summary };
  }

  /** Changes the fields given (each accept, filter or drop); 422 for any other value. */
  async update(accountId: string, changes: Partial<Record<keyof Policy, string>>): Promise<void> {
    const policy = await this.repo.policy(accountId);
    for (const field of POLICY_FIELDS) {
      const value = changes[field];
      if (value === undefined) continue;
      if (!(CHOICES as readonly string[]).includes(value))
        throw unprocessable(`Validation failed: ${humanize(field)} is not included in the list`);
      policy[field] = value as PolicyChoice;
    }
    await this.repo.savePolicy(accountId, policy, nowIso(this.ctx.now()));
  }

  requests(accountId: string, page: PageQuery): Promise<RequestRow[]> {
    return this.repo.requests(accountId, page);
  }

  async request(accountId: string, id: string): Promise<RequestRow> {
    const row = await this.repo.request(accountId, id);
    if (!row) throw notFound();
    return row;
  }

  /** Accepts requests: one named in the path must exist (404); of a list, unknown ids are passed over. */
  async accept(accountId: string, ids: readonly string[], single: boolean): Promise<void> {
    for (const request of await this.found(accountId, ids, single))
      await this.repo.accept(accountId, request, nowIso(this.ctx.now()));
    // The bus's "an account's notifications changed" signal (unread counts are recounted on it).
    this.ctx.events.emit('notifications.removed', { accountId });
  }

  /** Dismisses requests; one alone takes its filtered notifications with it, a list does not (Mastodon's). */
  async dismiss(accountId: string, ids: readonly string[], single: boolean): Promise<void> {
    for (const request of await this.found(accountId, ids, single)) await this.repo.dismiss(accountId, request, single);
  }

  private async found(accountId: string, ids: readonly string[], single: boolean): Promise<RequestRow[]> {
    if (single) return [await this.request(accountId, ids[0])];
    const rows = await Promise.all(ids.map((id) => this.repo.request(accountId, id)));
    return rows.filter((row): row is RequestRow => row !== undefined);
  }
}

function humanize(field: string): string {
  const words = field.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
