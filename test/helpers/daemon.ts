/**
 * Starts the real daemon (scripts/nestboxd, as production does) as a child process on free loopback ports
 * with a temporary data dir, waits for /healthz, and stops it. Every integration test uses this.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { daemonCommand, REPO_ROOT, tempDir } from './paths.js';
import { send } from './http-client.js';
import { freePort } from './ports.js';
import { placeMigratedDatabase } from './migrated-database.js';
import { databaseUrlOf, dropDatabaseOf, placePostgresDatabase, testEngine } from './daemon-database.js';

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

export interface DaemonOptions {
  /** Extra NESTBOX_* (or other) environment variables. */
  env?: Record<string, string | undefined>;
  /** Written to a JSON file and passed with --config. */
  config?: Record<string, unknown>;
  /** Listen on this port (e.g. to restart at the same address); a free one otherwise. */
  port?: number;
  /** Reuse a data dir (e.g. to restart on the same database); a fresh temp dir otherwise. */
  dataDir?: string;
  /**
   * Start on an empty data dir, migrating as a first start does (default: a fresh data dir gets a
   * copy of an already migrated database, see migrated-database.ts).
   */
  freshDatabase?: boolean;
  /** Keep the data dir after stop (the caller removes it). */
  keepDataDir?: boolean;
  /** Wait for /healthz before resolving (default true). */
  waitReady?: boolean;
  startTimeoutMs?: number;
  /**
   * Run it inside a network namespace: the command prefix (`ip netns exec NS`) and a fetch that
   * reaches the daemon's loopback there (the test process's own fetch cannot).
   */
  within?: { command: string[]; fetch: (url: string, init?: RequestInit) => Promise<Response> };
}

export interface RunningDaemon {
  url: string;
  port: number;
  streamingPort: number;
  dataDir: string;
  child: ChildProcess;
  logs: LogLine[];
  /** Raw stdout lines that were not JSON (there should be none). */
  rawLines: string[];
  stderr: () => string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  json<T = any>(path: string, init?: RequestInit): Promise<{ status: number; body: T; headers: Headers }>;
  waitForLog(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** SIGTERM (or another signal) and wait for exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A port from freePort() can be taken by another test process before the daemon binds it. */
const PORT_RACE_ATTEMPTS = 3;

export async function startDaemon(options: DaemonOptions = {}, attempt = 1): Promise<RunningDaemon> {
  const data = options.dataDir ? { path: options.dataDir, remove: () => undefined } : tempDir();
  const ownDatabase = options.env?.NESTBOX_DATA_DIR || options.env?.NESTBOX_DATABASE_URL;
  let databaseUrl = options.dataDir ? databaseUrlOf(options.dataDir) : undefined;
  // A folder of the test's own (a daemon started again on it, a crash test) stores on PostgreSQL
  // too: its database is placed on the first start and found again on the next.
  const placeable = !options.freshDatabase && !ownDatabase && !databaseUrl;
  if (placeable && testEngine() === 'postgres') databaseUrl = await placePostgresDatabase(data.path);
  else if (placeable && !options.dataDir) await placeMigratedDatabase(join(data.path, 'nestbox.sqlite3'));
  const port = options.port ?? (await freePort());
  const streamingPort = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args: string[] = [];
  if (options.config) {
    const file = join(data.path, 'test-config.json');
    writeFileSync(file, JSON.stringify(options.config));
    args.push('--config', file);
  }
  const launch = daemonCommand(args);
  const env: NodeJS.ProcessEnv = {
    ...launch.env,
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NESTBOX_DATA_DIR: data.path,
    NESTBOX_HTTP_HOST: '127.0.0.1',
    NESTBOX_HTTP_PORT: String(port),
    NESTBOX_STREAMING_PORT: String(streamingPort),
    NESTBOX_BASE_URL: url,
    NESTBOX_LOG_LEVEL: 'debug',
    ...(databaseUrl && { NESTBOX_DATABASE_URL: databaseUrl }),
    ...options.env,
  };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];

  const [command, ...prefix] = options.within ? [...options.within.command, launch.command] : [launch.command];
  const child = spawn(command, [...prefix, ...launch.args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const reach = options.within?.fetch ?? fetch;
  const logs: LogLine[] = [];
  const rawLines: string[] = [];
  const listeners = new Set<(line: LogLine) => void>();
  let stderr = '';
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!text.trim()) continue;
      try {
        const line = JSON.parse(text) as LogLine;
        logs.push(line);
        // TEST_DAEMON_ERRORS=1: the daemon's warnings and errors on the suite's output, to see why a request failed.
        if (process.env.TEST_DAEMON_ERRORS && (line.level === 'error' || line.level === 'warn'))
          console.error('daemon:', line.msg, JSON.stringify(line.error));
        for (const listener of listeners) listener(line);
      } catch {
        rawLines.push(text);
      }
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });

  const daemon: RunningDaemon = {
    url,
    port,
    streamingPort,
    dataDir: data.path,
    child,
    logs,
    rawLines,
    stderr: () => stderr,
    fetch: (path, init) => reach(url + path, init),
    async json(path, init) {
      const response = await reach(url + path, init);
      const textBody = await response.text();
      let body: any = textBody;
      try {
        body = JSON.parse(textBody);
      } catch {
        /* not JSON: keep the text */
      }
      return { status: response.status, body, headers: response.headers };
    },
    waitForLog(match, timeoutMs = 10_000) {
      const found = logs.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error('log line not seen in time'));
        }, timeoutMs);
        const listener = (line: LogLine) => {
          if (!match(line)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(line);
        };
        listeners.add(listener);
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const { code } = await exited;
      clearTimeout(timer);
      if (!options.keepDataDir && !options.dataDir) {
        data.remove();
        await dropDatabaseOf(data.path);
      }
      return code;
    },
    exited,
  };

  if (options.waitReady !== false) {
    try {
      await waitForHealth(daemon, options.startTimeoutMs ?? 20_000, options.within !== undefined);
    } catch (error) {
      await daemon.stop('SIGKILL');
      const lostPortRace = logs.some((line) => JSON.stringify(line.error ?? '').includes('EADDRINUSE'));
      if (lostPortRace && options.port === undefined && attempt < PORT_RACE_ATTEMPTS)
        return startDaemon(options, attempt + 1);
      throw new Error(
        `${(error as Error).message}\nstderr: ${stderr}\nlogs: ${logs
          .slice(-10)
          .map((l) => JSON.stringify(l))
          .join('\n')}`,
        { cause: error },
      );
    }
  }
  return daemon;
}

async function waitForHealth(daemon: RunningDaemon, timeoutMs: number, within: boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // The daemon logs "ready" once it serves: wait for that line (or its exit) rather than polling.
  const ready = daemon
    .waitForLog((line) => line.msg === 'ready', timeoutMs)
    .then(
      () => 'ready' as const,
      () => 'late' as const,
    );
  const outcome = await Promise.race([ready, daemon.exited.then(() => 'exited' as const)]);
  if (outcome === 'exited') throw new Error(`daemon exited during start-up (code ${daemon.child.exitCode})`);
  if (outcome === 'late') throw new Error('daemon did not become ready in time');
  while (Date.now() < deadline) {
    if (daemon.child.exitCode !== null)
      throw new Error(`daemon exited during start-up (code ${daemon.child.exitCode})`);
    try {
      if (await healthy(daemon, within)) return;
    } catch {
      /* not answering yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('daemon did not become ready in time');
}

/** GET /healthz answers 2xx; on loopback with the plain client, which costs a test less than fetch(). */
async function healthy(daemon: RunningDaemon, within: boolean): Promise<boolean> {
  if (within) return (await daemon.fetch('/healthz')).ok;
  const { status } = await send(`${daemon.url}/healthz`, { method: 'GET', headers: {} });
  return status >= 200 && status < 300;
}

/**
 * Starts several daemons together (they share two cores, so each gets a longer start-up time);
 * if one fails, the others are stopped before the error is thrown, so none is left running.
 */
export async function startAll(starts: Array<Promise<RunningDaemon>>): Promise<RunningDaemon[]> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  const started = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (!failed) return started;
  await Promise.all(started.map((daemon) => daemon.stop('SIGKILL')));
  throw failed.reason;
}
