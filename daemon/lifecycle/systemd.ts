/**
 * sd_notify messages to systemd (READY=1, STATUS=, WATCHDOG=1, STOPPING=1) on $NOTIFY_SOCKET,
 * through `notify-transport.ts`. Nothing is sent when NOTIFY_SOCKET is unset. Messages are sent one
 * at a time, in order.
 */
import type { Logger } from '../log/logger.js';
import { notifyTransport, type NotifyTransport } from './notify-transport.js';

export interface Notifier {
  readonly enabled: boolean;
  ready(status: string): Promise<void>;
  status(status: string): Promise<void>;
  watchdog(): Promise<void>;
  stopping(status: string): Promise<void>;
  /** Resolves when every message queued so far has been handed to systemd. */
  flush(): Promise<void>;
}

export function createNotifier(env: NodeJS.ProcessEnv, log: Logger): Notifier {
  const socket = env.NOTIFY_SOCKET;
  const transport: NotifyTransport | null = socket ? notifyTransport(socket, log) : null;
  let queue: Promise<void> = Promise.resolve();
  let lastStatus = '';

  const send = (what: string, fields: string[]): Promise<void> => {
    if (!transport) return Promise.resolve();
    queue = queue
      .then(() => transport(fields))
      .catch((error: unknown) => log.warn('systemd notification failed', { what, error: String(error) }));
    return queue;
  };

  return {
    enabled: transport !== null,
    ready(status) {
      lastStatus = oneLine(status);
      return send('ready', ['READY=1', `STATUS=${lastStatus}`]);
    },
    status(status) {
      const line = oneLine(status);
      if (line === lastStatus) return queue;
      lastStatus = line;
      return send('status', [`STATUS=${line}`]);
    },
    watchdog() {
      return send('watchdog', ['WATCHDOG=1']);
    },
    stopping(status) {
      lastStatus = oneLine(status);
      return send('stopping', ['STOPPING=1', `STATUS=${lastStatus}`]);
    },
    flush() {
      return queue;
    },
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}
