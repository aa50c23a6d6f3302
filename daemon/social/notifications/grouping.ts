/**
 * Group keys, computed once when a notification is stored (Mastodon's set_group_key!):
 * favourites and reblogs group per status, follows per recipient, in sticky windows of 12 hour
 * buckets that start at the hour of the group's first notification.
 */
import type { NotificationType } from './types.js';

export const MAXIMUM_GROUP_SPAN_HOURS = 12;

/** How many of a group's newest senders it names (sample_account_ids). */
export const SAMPLE_ACCOUNTS = 8;

/** The part of the key before the hour bucket; null for types that never group. */
export function groupPrefix(type: NotificationType, statusId: string | null): string | null {
  switch (type) {
    case 'favourite':
    case 'reblog':
      return statusId ? `${type}-${statusId}` : null;
    case 'follow':
    case 'admin.sign_up':
      return type;
    default:
      return null;
  }
}

export function hourBucket(ms: number): number {
  return Math.floor(ms / 3_600_000);
}

/** The bucket to use: the open window's when the new one falls within 12 buckets of its start. */
export function windowBucket(now: number, openBucket: number | null): number {
  return openBucket !== null && now < openBucket + MAXIMUM_GROUP_SPAN_HOURS ? openBucket : now;
}
