/** Notification (v1), notification group and the v2 envelope (Mastodon 4.5 shapes). */
import { serializePartialAccount, type AccountJson } from '../accounts/serialize.js';
import type { StatusJson } from '../statuses/serialize.js';
import type { NotificationRow, PageGroup } from './repo.js';
import type { Group } from './service.js';
import { STATUS_TYPES } from './types.js';

export function serializeNotification(
  row: NotificationRow,
  accounts: Map<string, AccountJson>,
  statuses: Map<string, StatusJson>,
): Record<string, unknown> | null {
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

/** Where a group was met on a page (v2 pages carry it; the show endpoint does not). */
interface PageFields {
  minId: string;
  maxId: string;
  latestAt: string;
}

/**
 * A notification group; with `page`, the page fields after the id. most_recent_notification_id is
 * a JSON number, as Mastodon sends it (clients decode an integer; notification ids stay below 2^53).
 */
export function serializeGroup(group: Group, page?: PageFields): Record<string, unknown> {
  return {
    group_key: group.group_key,
    notifications_count: group.notifications_count,
    type: group.type,
    most_recent_notification_id: Number(group.most_recent_notification_id),
    page_min_id: page?.minId,
    page_max_id: page?.maxId,
    latest_page_notification_at: page?.latestAt,
    sample_account_ids: group.sample_account_ids,
    status_id: STATUS_TYPES.has(group.type) ? group.status_id : null,
  };
}

function serializePageGroup(group: PageGroup): Record<string, unknown> {
  return serializeGroup(
    {
      group_key: group.groupKey,
      notifications_count: group.count,
      type: group.type,
      most_recent_notification_id: group.newestId,
      sample_account_ids: group.sampleAccountIds,
      status_id: group.statusId,
    },
    { minId: group.minId, maxId: group.newestId, latestAt: group.latestAt },
  );
}

export type Expand = 'full' | 'partial_avatars';

/** What the envelope must know of a group to place its accounts and status. */
interface Placed {
  type: string;
  statusId: string | null;
  sampleAccountIds: readonly string[];
}

/** The v2 envelope of a page. */
export function serializePage(
  groups: readonly PageGroup[],
  accounts: Map<string, AccountJson>,
  statuses: Map<string, StatusJson>,
  expand: Expand,
): Record<string, unknown> {
  return envelope(groups, accounts, statuses, expand, (visible) => visible.map(serializePageGroup));
}

/** The v2 envelope of one group (the show endpoint). */
export function serializeGroupEnvelope(
  group: Group,
  accounts: Map<string, AccountJson>,
  statuses: Map<string, StatusJson>,
  expand: Expand,
): Record<string, unknown> {
  const placed = { type: group.type, statusId: group.status_id, sampleAccountIds: group.sample_account_ids, group };
  return envelope([placed], accounts, statuses, expand, (visible) =>
    visible.map((entry) => serializeGroup(entry.group)),
  );
}

/**
 * The v2 envelope. Full: every sample account. Partial avatars: the most recent account of each
 * group in full, the other sample accounts as partial accounts (never one already in full). A
 * group whose status is not shown to the viewer is left out.
 */
function envelope<G extends Placed>(
  groups: readonly G[],
  accounts: Map<string, AccountJson>,
  statuses: Map<string, StatusJson>,
  expand: Expand,
  render: (visible: G[]) => unknown,
): Record<string, unknown> {
  const visible = groups.filter(
    (group) => !STATUS_TYPES.has(group.type) || (group.statusId && statuses.has(group.statusId)),
  );
  const full: AccountJson[] = [];
  const fullIds = new Set<string>();
  const addFull = (id: string) => {
    const account = accounts.get(id);
    if (account && !fullIds.has(id)) {
      fullIds.add(id);
      full.push(account);
    }
  };
  for (const group of visible) {
    if (expand === 'full') group.sampleAccountIds.forEach(addFull);
    else if (group.sampleAccountIds[0]) addFull(group.sampleAccountIds[0]);
  }
  const result: Record<string, unknown> = { accounts: full };
  if (expand === 'partial_avatars') {
    const partial = new Map<string, ReturnType<typeof serializePartialAccount>>();
    for (const group of visible) {
      for (const id of group.sampleAccountIds.slice(1)) {
        const account = accounts.get(id);
        if (account && !fullIds.has(id) && !partial.has(id)) partial.set(id, serializePartialAccount(account));
      }
    }
    result.partial_accounts = [...partial.values()];
  }
  const statusList: StatusJson[] = [];
  const seen = new Set<string>();
  for (const group of visible) {
    if (group.statusId && statuses.has(group.statusId) && !seen.has(group.statusId)) {
      seen.add(group.statusId);
      statusList.push(statuses.get(group.statusId)!);
    }
  }
  result.statuses = statusList;
  result.notification_groups = render(visible);
  return result;
}
