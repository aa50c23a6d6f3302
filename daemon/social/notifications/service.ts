/**
 * The rules of the notifications section: when a notification is stored, filtered or dropped
 * (notification-policy/rules.ts), how it is grouped, and the v1 and v2 reads: filters, cursors, caps, unread counts
 * honouring the notifications marker, and 404 versus 200 for another account's notification.
 */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { notFound } from '../../lib/errors.js';
import { nowIso } from '../time.js';
import { NotificationsRepo, type Cursor, type Filter, type NotificationRow, type PageGroup } from './repo.js';
import { groupPrefix, hourBucket, SAMPLE_ACCOUNTS, windowBucket } from './grouping.js';
import type { NotificationType } from './types.js';
import { NotificationPolicyService } from '../notification-policy/service.js';

export const DEFAULT_LIMIT = 40;
export const MAX_LIMIT = 80;
export const UNREAD_DEFAULT_CAP = 100;
export const UNREAD_MAX_CAP = 1000;

export interface NewNotification {
  recipientId: string;
  fromId: string;
  type: NotificationType;
  statusId?: string | null;
  /** The record whose removal removes the notification (a reblog, a mentioning status). */
  activityId?: string | null;
}

/** One group, counted over all its notifications (the show endpoint's). */
export interface Group {
  group_key: string;
  notifications_count: number;
  type: string;
  most_recent_notification_id: string;
  sample_account_ids: string[];
  status_id: string | null;
}

export class NotificationsService {
  readonly repo: NotificationsRepo;
  readonly policy: NotificationPolicyService;

  constructor(private readonly ctx: SocialContext) {
    this.repo = new NotificationsRepo(ctx);
    this.policy = new NotificationPolicyService(ctx);
  }

  /**
   * Stores a notification unless a rule drops it; returns its id or null. One the recipient's
   * policy filters is stored aside (filtered, no group) and announced to no one: its sender's
   * request (for mentions) collects it.
   */
  async notify(input: NewNotification): Promise<string | null> {
    const verdict = await this.policy.verdict(input.recipientId, input.fromId, input.type, input.statusId ?? null);
    if (verdict === 'drop') return null;
    const filtered = verdict === 'filter';
    const now = this.ctx.now();
    const prefix = filtered ? null : groupPrefix(input.type, input.statusId ?? null);
    const insert = (trx: Knex, groupKey: string | null) =>
      this.repo.insert(trx, {
        account_id: input.recipientId,
        from_account_id: input.fromId,
        type: input.type,
        filtered,
        status_id: input.statusId ?? null,
        activity_id: input.activityId ?? null,
        group_key: groupKey,
        created_at: nowIso(now),
      });
    // A group's window is read and moved with the insert; one that joins no group is one statement.
    const id = prefix
      ? await this.ctx.db.transaction(async (trx) =>
          insert(trx, await this.groupKey(trx, input.recipientId, prefix, now)),
        )
      : await insert(this.ctx.db, null);
    if (!filtered)
      this.ctx.events.emit('notification.created', {
        notificationId: id,
        accountId: input.recipientId,
        type: input.type,
      });
    return id;
  }

  /**
   * One sender's notifications of one type that never groups (a status's mentions) to several
   * recipients, each under its own policy as notify() does, stored in one statement.
   */
  async notifyEach(recipientIds: readonly string[], input: Omit<NewNotification, 'recipientId'>): Promise<void> {
    if (groupPrefix(input.type, input.statusId ?? null)) throw new Error(`${input.type} notifications group`);
    const recipients = [...new Set(recipientIds)];
    const verdicts = await Promise.all(
      recipients.map((recipientId) =>
        this.policy.verdict(recipientId, input.fromId, input.type, input.statusId ?? null),
      ),
    );
    const createdAt = nowIso(this.ctx.now());
    const kept = recipients.flatMap((recipientId, i) =>
      verdicts[i] === 'drop' ? [] : [{ recipientId, filtered: verdicts[i] === 'filter' }],
    );
    const ids = await this.repo.insertUngrouped(
      kept.map(({ recipientId, filtered }) => ({
        account_id: recipientId,
        from_account_id: input.fromId,
        type: input.type,
        status_id: input.statusId ?? null,
        activity_id: input.activityId ?? null,
        filtered,
        created_at: createdAt,
      })),
    );
    for (const { recipientId, filtered } of kept)
      if (!filtered)
        this.ctx.events.emit('notification.created', {
          notificationId: ids.get(recipientId)!,
          accountId: recipientId,
          type: input.type,
        });
  }

  private async groupKey(trx: Knex, recipientId: string, prefix: string, now: number): Promise<string> {
    const open = await this.repo.openWindow(trx, recipientId, prefix);
    const bucket = windowBucket(hourBucket(now), open);
    if (bucket !== open) await this.repo.setWindow(trx, recipientId, prefix, bucket);
    return `${prefix}-${bucket}`;
  }

  /** Removes the notifications of an undone action (unfavourite, unreblog, unfollow, deletion). */
  async remove(trx: Knex, where: Parameters<NotificationsRepo['remove']>[1]): Promise<void> {
    const accounts = await this.repo.remove(trx, where);
    for (const accountId of accounts) this.ctx.events.emit('notifications.removed', { accountId });
  }

  // ── v1 ──

  list(accountId: string, filter: Filter, cursor: Cursor): Promise<NotificationRow[]> {
    return this.repo.list(accountId, filter, cursor);
  }

  async show(accountId: string, id: string): Promise<NotificationRow> {
    const row = await this.find(accountId, id);
    if (!row) throw notFound();
    return row;
  }

  find(accountId: string, id: string): Promise<NotificationRow | undefined> {
    return this.repo.one(accountId, id);
  }

  async dismiss(accountId: string, id: string): Promise<void> {
    const removed = await this.repo.removeIds(accountId, [id]);
    if (!removed) throw notFound();
    this.ctx.events.emit('notifications.removed', { accountId });
  }

  async clear(accountId: string): Promise<void> {
    await this.repo.clear(accountId);
    this.ctx.events.emit('notifications.removed', { accountId });
  }

  async unreadCount(accountId: string, filter: Filter, cap: number): Promise<number> {
    return this.repo.countUnread(accountId, filter, cap);
  }

  // ── v2 ──

  /** A v2 page: one group per representative, newest first, counted over the page's range. */
  page(accountId: string, filter: Filter, groupedTypes: readonly string[], cursor: Cursor): Promise<PageGroup[]> {
    return this.repo.groupedPage(accountId, filter, groupedTypes, cursor);
  }

  /** One group, counted over all its notifications (no page fields). */
  async group(accountId: string, groupKey: string): Promise<Group> {
    const rows = await this.repo.byGroupKey(accountId, groupKey);
    if (rows.length === 0) throw notFound();
    const newest = rows[0];
    return {
      group_key: newest.group_key ?? `ungrouped-${newest.id}`,
      notifications_count: rows.length,
      type: newest.type,
      most_recent_notification_id: newest.id,
      sample_account_ids: rows.slice(0, SAMPLE_ACCOUNTS).map((row) => row.from_account_id),
      status_id: newest.status_id,
    };
  }

  /** v2 dismiss: the whole group; another account's or an unknown key changes nothing. */
  async dismissGroup(accountId: string, groupKey: string): Promise<void> {
    const rows = await this.repo.byGroupKey(accountId, groupKey);
    if (
      await this.repo.removeIds(
        accountId,
        rows.map((row) => row.id),
      )
    )
      this.ctx.events.emit('notifications.removed', { accountId });
  }

  async groupAccounts(
    accountId: string,
    groupKey: string,
    cursor: Cursor,
  ): Promise<Array<{ id: string; from_account_id: string }>> {
    if (groupKey.startsWith('ungrouped-')) return [];
    return this.repo.groupAccounts(accountId, groupKey, cursor);
  }

  async unreadGroupCount(
    accountId: string,
    filter: Filter,
    groupedTypes: readonly string[],
    cap: number,
  ): Promise<number> {
    return this.repo.countUnreadGroups(accountId, filter, groupedTypes, cap);
  }
}
