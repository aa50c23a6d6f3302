/**
 * A real unix datagram socket standing in for systemd's NOTIFY_SOCKET: a small python3 listener
 * that prints every datagram it receives as one JSON line. A socket file by default (as systemd's
 * /run/systemd/notify), or an abstract one (`@name`), which the daemon reaches through the
 * systemd-notify binary.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './paths.js';
import { requirePackage } from './system-packages.js';

const LISTENER = `
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1].replace("@", "\\0", 1) if sys.argv[1].startswith("@") else sys.argv[1])
print("LISTENING", flush=True)
while True:
    data = s.recv(65536)
    print(json.dumps(data.decode("utf-8", "replace")), flush=True)
`;

export interface NotifyListener {
  path: string;
  /** Every datagram received so far, each split into its KEY=VALUE fields. */
  messages: Array<Record<string, string>>;
  waitFor(match: (message: Record<string, string>) => boolean, timeoutMs?: number): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function startNotifyListener(options: { abstract?: boolean } = {}): Promise<NotifyListener> {
  // python3 listens; systemd's systemd-notify carries the messages to an abstract socket.
  requirePackage(['python3', 'systemd']);
  const dir = tempDir('nestbox-notify-');
  const path = options.abstract ? `@${dir.path}/notify` : join(dir.path, 'notify.sock');
  const child: ChildProcess = spawn('python3', ['-c', LISTENER, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  const messages: Array<Record<string, string>> = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line === 'LISTENING') {
          resolve();
          continue;
        }
        const text = JSON.parse(line) as string;
        messages.push(
          Object.fromEntries(
            text
              .split('\n')
              .filter(Boolean)
              .map((field) => {
                const eq = field.indexOf('=');
                return [field.slice(0, eq), field.slice(eq + 1)];
              }),
          ),
        );
        for (const wake of waiters) wake();
      }
    });
  });
  if (!options.abstract && !existsSync(path)) throw new Error('notify socket was not created');
  return {
    path,
    messages,
    waitFor(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(match);
          if (!found) return false;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error('notify message not received in time'));
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    async close() {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
      dir.remove();
    },
  };
}
