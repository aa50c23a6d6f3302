/**
 * The daemon's watch on its PostgreSQL server, over one connection of its own:
 * - the data version (the response cache's key): a number this process moves on its own commits
 *   (told by the driver, `postgres.ts`) and on every other process's, which PostgreSQL announces
 *   on LISTEN/NOTIFY when they commit (`migrations/postgres/announce-writes.ts`); no query per request;
 * - whether the server is there: the connection ends when the server goes, and a probe on it finds a
 *   server that went silent. Then the watch reconnects with backoff and, once back, moves the
 *   version (announcements may have been missed meanwhile).
 * While the server is lost nobody can commit there, so what the caches hold stays true.
 */
import pg from 'pg';
import { DATA_VERSION_CHANNEL } from './migrations/postgres/announce-writes.js';

export interface ServerWatchTimes {
  /** How often the connection is probed while it looks fine. */
  probeEveryMs: number;
  /** A probe not answered in this time counts as a lost server. */
  probeTimeoutMs: number;
  /** The first reconnect's wait; each failed one doubles it, up to `maxRetryMs`. */
  firstRetryMs: number;
  maxRetryMs: number;
}

const TIMES: ServerWatchTimes = { probeEveryMs: 2000, probeTimeoutMs: 3000, firstRetryMs: 250, maxRetryMs: 4000 };

/** Told when the server is lost (why) and when it is back (null). */
export type ServerListener = (lost: string | null) => void;

export class ServerWatch {
  private count = 0;
  private users = 0;
  private client: pg.Client | null = null;
  private lostReason: string | null = null;
  private retries = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<ServerListener>();
  /** The server processes of this process's own connections: their commits were counted when answered. */
  private readonly own = new Set<number>();
  private readonly times: ServerWatchTimes;

  constructor(
    private readonly connection: pg.ClientConfig,
    times: Partial<ServerWatchTimes> = {},
  ) {
    this.times = { ...TIMES, ...times };
  }

  /** Moves whenever a commit anywhere may have changed the data, and after the watch was away. */
  get version(): number {
    return this.count;
  }

  /** Why the server is lost, or null while the watch is connected (or not started). */
  get lost(): string | null {
    return this.lostReason;
  }

  /** A commit of this process: counted when its answer arrives, so every read after sees the new version. */
  bump(): void {
    this.count += 1;
  }

  /** A connection of this process (its server process `pid`) opened, or closed. */
  ownProcess(pid: number | null | undefined, open: boolean): void {
    if (pid === null || pid === undefined) return;
    if (open) this.own.add(pid);
    else this.own.delete(pid);
  }

  onChange(listener: ServerListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Starts the watch for one more user (the first waits for its first connection); the function stops it for them. */
  async acquire(): Promise<() => Promise<void>> {
    this.users += 1;
    if (this.users === 1) await this.connect();
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      this.users -= 1;
      if (this.users === 0) await this.stop();
    };
  }

  private async connect(): Promise<void> {
    this.timer = null;
    const client = new pg.Client({ ...this.connection, keepAlive: true });
    client.on('error', (error) => this.drop(client, error.message));
    client.on('end', () => this.drop(client, 'the connection ended'));
    client.on('notification', ({ processId }) => {
      if (!this.own.has(processId)) this.bump();
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${DATA_VERSION_CHANNEL}`);
    } catch (error) {
      this.drop(client, (error as Error).message);
      return;
    }
    if (this.client !== client) return;
    this.retries = 0;
    this.bump();
    this.tell(null);
    this.schedule(() => this.probe(client), this.times.probeEveryMs);
  }

  private async probe(client: pg.Client): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the server does not answer')), this.times.probeTimeoutMs);
    });
    try {
      await Promise.race([client.query('SELECT 1'), late]);
    } catch (error) {
      this.drop(client, (error as Error).message);
      return;
    } finally {
      clearTimeout(timer);
    }
    if (this.client === client) this.schedule(() => this.probe(client), this.times.probeEveryMs);
  }

  /** The connection `client` is gone: say so once, and try again later. */
  private drop(client: pg.Client, reason: string): void {
    if (this.client !== client) return;
    this.client = null;
    this.clearTimer();
    client.removeAllListeners('notification');
    // An error after this is the dead connection's own, already reported.
    client.on('error', () => undefined);
    client.end().catch(() => undefined);
    this.tell(reason);
    if (this.users === 0) return;
    const wait = Math.min(this.times.maxRetryMs, this.times.firstRetryMs * 2 ** this.retries);
    this.retries += 1;
    this.schedule(() => this.connect(), wait);
  }

  private tell(lost: string | null): void {
    if ((lost === null) === (this.lostReason === null)) return;
    this.lostReason = lost;
    for (const listener of this.listeners) listener(lost);
  }

  private schedule(run: () => Promise<void>, ms: number): void {
    this.clearTimer();
    this.timer = setTimeout(() => void run(), ms);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async stop(): Promise<void> {
    this.clearTimer();
    const client = this.client;
    this.client = null;
    this.lostReason = null;
    if (client) await client.end().catch(() => undefined);
  }
}
