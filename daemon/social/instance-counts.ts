/**
 * The instance figures the device state (and so MQTT) shows: accounts, local statuses (reblogs
 * included, as in the accounts' statuses_count), the owner's
 * pending follow requests and the owner's unread notifications (newer than the notifications
 * marker, counted as Mastodon's v1 unread_count does, capped at 1000).
 */
import type { Logger } from '../log/logger.js';
import type { SocialEventBus } from './events.js';
import type { Reader } from './store/reader.js';

export interface InstanceCounts {
  accounts: number;
  statuses: number;
  pending_follow_requests: number;
  unread_notifications: number;
}

const UNREAD_CAP = 1000;

export async function instanceCounts(reader: Reader): Promise<InstanceCounts> {
  const row = await reader.get<InstanceCounts>(`
    WITH owner AS (SELECT account_id AS id FROM users WHERE role = 'owner' ORDER BY created_at LIMIT 1)
    SELECT
      (SELECT count(*) FROM accounts WHERE domain IS NULL AND suspended_at IS NULL) AS accounts,
      -- The local accounts' counters (as Mastodon's instance statistics): no scan of the statuses.
      (SELECT coalesce(sum(statuses_count), 0) FROM accounts WHERE domain IS NULL) AS statuses,
      (SELECT count(*) FROM follow_requests WHERE target_account_id = (SELECT id FROM owner)) AS pending_follow_requests,
      (SELECT count(*) FROM (
         SELECT 1 FROM notifications n
          WHERE n.account_id = (SELECT id FROM owner) AND n.filtered = 0
            AND n.id > coalesce((SELECT last_read_id FROM markers WHERE account_id = (SELECT id FROM owner) AND timeline = 'notifications'), 0)
          LIMIT ${UNREAD_CAP})) AS unread_notifications`);
  return row ?? { accounts: 0, statuses: 0, pending_follow_requests: 0, unread_notifications: 0 };
}

/** The bus events after which the counts may have changed. */
const COUNTED_EVENTS = [
  'account.created',
  'status.created',
  'status.deleted',
  'notification.created',
  'notifications.removed',
  'follow.created',
  'follow.removed',
  'follow_request.authorized',
  'follow_request.rejected',
  'marker.updated',
] as const;

/**
 * Recomputes the counts at most every `delayMs` while things happen on the bus, and hands them
 * to `apply` (the device state). A failure is logged, never thrown.
 */
export function watchInstanceCounts(
  events: SocialEventBus,
  read: () => Promise<InstanceCounts>,
  apply: (counts: InstanceCounts) => void,
  log: Logger,
  delayMs = 500,
): { refresh(): Promise<void>; stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const refresh = async () => {
    timer = null;
    if (stopped) return;
    try {
      apply(await read());
    } catch (error) {
      log.warn('instance counts failed', { error });
    }
  };
  const schedule = () => {
    if (!stopped) timer ??= setTimeout(() => void refresh(), delayMs);
  };
  const watcher = {
    refresh,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      events.removeListeners(watcher);
    },
  };
  for (const name of COUNTED_EVENTS) events.on(watcher, name, schedule);
  return watcher;
}
