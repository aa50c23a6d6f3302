/**
 * Keeps the instance figures in the device state (and so MQTT) current: recomputed shortly after
 * the bus events that may change them (the figures themselves: InstanceRepo.counts).
 */
import type { Logger } from '../log/logger.js';
import type { SocialEventBus } from './events.js';
import type { InstanceCounts } from './instance/repo.js';

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
