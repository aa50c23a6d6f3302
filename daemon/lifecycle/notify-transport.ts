/**
 * How one sd_notify message reaches systemd. To a socket file (systemd's own /run/systemd/notify)
 * the daemon sends the datagram itself, through `unix-dgram`: no process is spawned on the start
 * path, and systemd sees the message come from the main process. `unix-dgram` cannot address
 * abstract sockets (`@name`), and its native part may be missing on a broken install: then the
 * systemd-notify binary carries the message, as a child process (the unit's NotifyAccess=all).
 */
import { execFile } from 'node:child_process';
import type { UnixDgramSocket } from 'unix-dgram';
import type { Logger } from '../log/logger.js';
import { onFirstUse } from '../lib/on-first-use.js';

/**
 * Sends `fields` (KEY=VALUE each) as one message naming this process as the main one (MAINPID=, as
 * `systemd-notify --pid` does); rejects when it could not be handed over.
 */
export type NotifyTransport = (fields: readonly string[]) => Promise<void>;

const BINARY_TIMEOUT_MS = 3000;

export function notifyTransport(socket: string, log: Logger): NotifyTransport {
  if (socket.startsWith('@')) return binaryTransport;
  const datagrams = loadDatagrams();
  if (datagrams instanceof Error) {
    log.warn('notifying systemd through systemd-notify', { error: datagrams.message });
    return binaryTransport;
  }
  return (fields) => sendDatagram(datagrams, socket, fields);
}

type Datagrams = { createSocket(type: 'unix_dgram'): UnixDgramSocket };

function loadDatagrams(): Datagrams | Error {
  try {
    return onFirstUse<Datagrams>('unix-dgram')();
  } catch (error) {
    return error as Error;
  }
}

/** One socket per message: messages are rare (status changes, a watchdog ping each half interval). */
function sendDatagram(datagrams: Datagrams, path: string, fields: readonly string[]): Promise<void> {
  const message = Buffer.from([...fields, `MAINPID=${process.pid}`].join('\n'));
  return new Promise<void>((resolve, reject) => {
    const socket = datagrams.createSocket('unix_dgram');
    socket.on('error', reject);
    try {
      socket.send(message, 0, message.length, path, (error) => (error ? reject(error) : resolve()));
    } finally {
      socket.close();
    }
  });
}

const binaryTransport: NotifyTransport = (fields) =>
  new Promise<void>((resolve, reject) => {
    execFile(
      'systemd-notify',
      [`--pid=${process.pid}`, ...fields],
      { timeout: BINARY_TIMEOUT_MS },
      (error: Error | null) => (error ? reject(error) : resolve()),
    );
  });
