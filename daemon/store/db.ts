/**
 * The one SQLite database of the box, through knex: WAL so readers never wait for the writer,
 * foreign keys on, a busy timeout so a second connection waits instead of failing, and
 * transactions that take the write lock when they begin.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { SqliteSynchronous } from '../config.js';

export type Db = Knex;

export interface OpenOptions {
  /** Path of the SQLite file; ':memory:' for a throw-away database. */
  filename: string;
  busyTimeoutMs?: number;
  /**
   * FULL (the default) syncs the WAL at every commit, so an acknowledged write survives a power
   * cut; NORMAL syncs only at checkpoints and may lose the last commits (never consistency).
   */
  synchronous?: SqliteSynchronous;
  /**
   * Take SQLite's exclusive lock at the first access and keep it until the database is closed
   * (no other connection, in this process or another, reads or writes meanwhile).
   */
  exclusive?: boolean;
}

export const BUSY_TIMEOUT_MS = 5000;

export function openDatabase({
  filename,
  busyTimeoutMs = BUSY_TIMEOUT_MS,
  synchronous = 'full',
  exclusive = false,
}: OpenOptions): Db {
  if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
  return knexFactory({
    client: 'sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // One writer: SQLite serialises writes anyway, and one connection keeps transactions simple.
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: SqliteConnection, done: (error: Error | null, conn: SqliteConnection) => void) {
        const pragmas = [
          `PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`,
          // Before any access: set later, the connection would already use the shared WAL index.
          ...(exclusive ? ['PRAGMA locking_mode = EXCLUSIVE'] : []),
          'PRAGMA journal_mode = WAL',
          // A box on an SD card loses power often: what the API acknowledged must be on the card.
          `PRAGMA synchronous = ${synchronous === 'normal' ? 'NORMAL' : 'FULL'}`,
          'PRAGMA foreign_keys = ON',
        ];
        beginImmediately(conn);
        conn.exec(pragmas.join(';'), (error) => done(error ?? null, conn));
      },
    },
  });
}

type Run = (sql: string, ...rest: unknown[]) => unknown;

interface SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void;
  all: Run;
  run: Run;
}

/** The statement knex opens every transaction with on SQLite. */
const KNEX_BEGIN = 'BEGIN;';

/**
 * Makes knex's transactions on `conn` begin with BEGIN IMMEDIATE. A deferred transaction takes the
 * write lock only at its first write; in WAL mode, if another connection (the admin tool beside
 * the daemon) committed since the transaction first read, SQLite refuses that write at once with
 * SQLITE_BUSY instead of waiting, since its snapshot is stale. Taking the lock at BEGIN makes the
 * two wait for each other within the busy timeout instead. knex has no option for it, and makes
 * a client per transaction from its class, so the connection's own methods carry it.
 */
function beginImmediately(conn: SqliteConnection): void {
  for (const method of ['all', 'run'] as const) {
    const original = conn[method].bind(conn);
    conn[method] = (sql, ...rest) => original(sql === KNEX_BEGIN ? 'BEGIN IMMEDIATE' : sql, ...rest);
  }
}

export async function pragma(db: Db, name: string): Promise<unknown> {
  const rows: Array<Record<string, unknown>> = await db.raw(`PRAGMA ${name}`);
  const first = rows[0];
  return first ? Object.values(first)[0] : undefined;
}

/** Answers whether the database still responds: used by /healthz and the watchdog. */
export async function ping(db: Db, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const query = db.raw('select 1 as ok').then(
      () => true,
      () => false,
    );
    return await Promise.race([query, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
