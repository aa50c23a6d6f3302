/**
 * Child processes inside a namespace (`ip netns exec NS ...`), registered for clean-up, with their
 * stdout as lines and their stderr kept for error messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { cleanup } from './netns.js';

export interface NsProcess {
  readonly child: ChildProcess;
  readonly lines: string[];
  stderr(): string;
  /** Resolves with the first stdout line (from now on, or already seen when `seen` is true) that matches. */
  waitForLine(match: (line: string) => boolean, timeoutMs: number, what: string, seen?: boolean): Promise<string>;
  onLine(listener: (line: string) => void): void;
  onStderrLine(listener: (line: string) => void): void;
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export function spawnIn(
  namespace: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): NsProcess {
  const child = spawn('ip', ['netns', 'exec', namespace, command, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env });
  cleanup.addChild(child);
  const lines: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const stderrListeners = new Set<(line: string) => void>();
  let stderr = '';
  createInterface({ input: child.stderr }).on('line', (line) => {
    stderr = (stderr + line + '\n').slice(-20_000);
    for (const listener of stderrListeners) listener(line);
  });
  child.stdin.on('error', () => undefined);
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const listener of listeners) listener(line);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (error) => {
      stderr += String(error);
      resolve(null);
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    child,
    lines,
    exited,
    stderr: () => stderr,
    onLine: (listener) => {
      listeners.add(listener);
    },
    onStderrLine: (listener) => {
      stderrListeners.add(listener);
    },
    waitForLine(match, timeoutMs, what, seen = false) {
      const found = seen ? lines.find(match) : undefined;
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const finish = () => {
          clearTimeout(timer);
          listeners.delete(listener);
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `${what}: not seen within ${timeoutMs} ms${stderr ? ` (stderr: ${stderr.trim().slice(-500)})` : ''}`,
            ),
          );
        }, timeoutMs);
        const listener = (line: string) => {
          if (match(line)) {
            finish();
            resolve(line);
          }
        };
        listeners.add(listener);
        void exited.then((code) => {
          if (!listeners.has(listener)) return;
          finish();
          reject(
            new Error(`${what}: ${command} exited (${code}) first${stderr ? `: ${stderr.trim().slice(-500)}` : ''}`),
          );
        });
      });
    },
    async stop(graceMs = 3000) {
      if (!running()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (running()) child.kill('SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
