/** Notification (v1), notification group and the v2 envelope (Mastodon 4.5 shapes). */
import { serializePartialAccount, type AccountJson } from '../accounts/serialize.js';
import type { StatusJson } from '../statuses/serialize.js';
import type { NotificationRow } from './repo.js';
import type { Group } from './service.js';
import { STATUS_TYPES } from './types.js';

export function serializeNotification(row: NotificationRow, accounts: Map<string, AccountJson>, statuses: Map<string, StatusJson>): Record<string, unknown> | null {
  const account = accounts.get(row.from_account_id);
  if (!account) return null;
  const json: Record<string, unknown> = {
    id: row.id,
    type: row.type,
    created_at: row.created_at,
    group_key: row.group_key ?? `ungrouped-${row.id}`,
  };
  if (row.filtered) json.filtered = true;
  json.account = account;
  if (STATUS_TYPES.has(row.type)) {
    const status = row.status_id ? statuses.get(row.status_id) : undefined;
    if (!status) return null;
    json.status = status;
  }
  return json;
}

/** most_recent_notification_id is a JSON number, as Mastodon sends it (clients decode an integer). */
export function serializeGroup(group: Group): Record<string, unknown> {
  const json: Record<string, unknown> = {
    group_key: group.group_key,
    notifications_count: group.notifications_count,
    type: group.type,
    most_recent_notification_id: Number(group.most_recent_notification_id),
  };
  if (group.page_min_id !== undefined) {
    json.page_min_id = group.page_min_id;
    json.page_max_id = group.page_max_id;
    json.latest_page_notification_at = group.latest_page_notification_at;
  }
  json.sample_account_ids = group.sample_account_ids;
  json.status_id = STATUS_TYPES.has(group.type) ? group.status_id : null;
  return json;
}

export type Expand = 'full' | 'partial_avatars';

/**
 * The v2 envelope. Full: every sample account. Partial avatars: the most recent account of each
 * group in full, the other sample accounts as partial accounts (never one already in full).
 */
export function serializeEnvelope(groups: Group[], accounts: Map<string, AccountJson>, statuses: Map<string, StatusJson>, expand: Expand): Record<string, unknown> {
  const visible = groups.filter((group) => !STATUS_TYPES.has(group.type) || (group.status_id && statuses.has(group.status_id)));
  const full: AccountJson[] = [];
  const fullIds = new Set<string>();
  const addFull = (id: string) => {
    const account = accounts.get(id);
    if (account && !fullIds.has(id)) { fullIds.add(id); full.push(account); }
  };
  for (const group of visible) {
    if (expand === 'full') group.sample_account_ids.forEach(addFull);
    else if (group.sample_account_ids[0]) addFull(group.sample_account_ids[0]);
  }
  const envelope: Record<string, unknown> = { accounts: full };
  if (expand === 'partial_avatars') {
    const partial = new Map<string, ReturnType<typeof serializePartialAccount>>();
    for (const group of visible) {
      for (const id of group.sample_account_ids.slice(1)) {
        const account = accounts.get(id);
        if (account && !fullIds.has(id) && !partial.has(id)) partial.set(id, serializePartialAccount(account));
      }
    }
    envelope.partial_accounts = [...partial.values()];
  }
  const statusList: StatusJson[] = [];
  const seen = new Set<string>();
  for (const group of visible) {
    if (group.status_id && statuses.has(group.status_id) && !seen.has(group.status_id)) {
      seen.add(group.status_id);
      statusList.push(statuses.get(group.status_id)!);
    }
  }
  envelope.statuses = statusList;
  envelope.notification_groups = visible.map(serializeGroup);
  return envelope;
}
