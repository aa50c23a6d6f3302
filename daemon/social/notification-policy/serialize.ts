/** NotificationPolicy (v2, and v1's booleans) and NotificationRequest (Mastodon 4.5 shapes). */
import type { AccountJson } from '../accounts/serialize.js';
import type { StatusJson } from '../statuses/serialize.js';
import type { RequestRow } from './repo.js';
import { POLICY_FIELDS, type Policy } from './rules.js';

type Summary = { pending_requests_count: number; pending_notifications_count: number };

export function serializePolicy(policy: Policy & { summary: Summary }): Record<string, unknown> {
  return { ...Object.fromEntries(POLICY_FIELDS.map((field) => [field, policy[field]])), summary: policy.summary };
}

/** v1: a field is "filtering" whenever it does not accept (drop included), as Mastodon maps it. */
export const V1_FIELDS = {
  filter_not_following: 'for_not_following',
  filter_not_followers: 'for_not_followers',
  filter_new_accounts: 'for_new_accounts',
  filter_private_mentions: 'for_private_mentions',
} as const;

export function serializePolicyV1(policy: Policy & { summary: Summary }): Record<string, unknown> {
  return {
    ...Object.fromEntries(Object.entries(V1_FIELDS).map(([v1, field]) => [v1, policy[field] !== 'accept'])),
    summary: policy.summary,
  };
}

export function serializeRequest(
  row: RequestRow,
  account: AccountJson,
  lastStatus: StatusJson | null,
): Record<string, unknown> {
  return {
    id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    account,
    // A string in Mastodon's API.
    notifications_count: String(row.notifications_count),
    last_status: lastStatus,
  };
}
