/**
 * sd_notify messages to systemd. READY=1 and STATUS= go through the systemd-notify package;
 * it has no watchdog or stopping call, so those are sent through the same systemd-notify binary.
 * Nothing is sent when NOTIFY_SOCKET is unset. Messages are sent one at a time, in order.
 */
import { execFile } from 'node:child_process';
import notify from 'systemd-notify';
import type { Logger } from '../log/logger.js';

export interface Notifier {
  readonly enabled: boolean;
  ready(status: string): Promise<void>;
  status(status: string): Promise<void>;
  watchdog(): Promise<void>;
  stopping(status: string): Promise<void>;
  /** Resolves when every message queued so far has been handed to systemd. */
  flush(): Promise<void>;
}

const NOTIFY_TIMEOUT_MS = 3000;

export function createNotifier(env: NodeJS.ProcessEnv, log: Logger): Notifier {
  const enabled = Boolean(env.NOTIFY_SOCKET);
  let queue: Promise<void> = Promise.resolve();
  let lastStatus = '';

  const send = (what: string, action: () => Promise<unknown>): Promise<void> => {
    if (!enabled) return Promise.resolve();
    queue = queue.then(action).then(
      () => undefined,
      (error: unknown) => log.warn('systemd notification failed', { what, error: String(error) }),
    );
    return queue;
  };

  const binary = (fields: string[]) => () =>
    new Promise<void>((resolve, reject) => {
      execFile(
        'systemd-notify',
        [`--pid=${process.pid}`, ...fields],
        { timeout: NOTIFY_TIMEOUT_MS },
        (error: Error | null) => (error ? reject(error) : resolve()),
      );
    });

  return {
    enabled,
    ready(status) {
      lastStatus = oneLine(status);
      return send('ready', () => notify({ ready: true, status: lastStatus }));
    },
    status(status) {
      const line = oneLine(status);
      if (line === lastStatus) return queue;
      lastStatus = line;
      return send('status', () => notify({ status: line }));
    },
    watchdog() {
      return send('watchdog', binary(['WATCHDOG=1']));
    },
    stopping(status) {
      lastStatus = oneLine(status);
      return send('stopping', binary(['STOPPING=1', `STATUS=${lastStatus}`]));
    },
    flush() {
      return queue;
    },
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}
