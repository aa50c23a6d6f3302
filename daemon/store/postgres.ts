/**
 * The PostgreSQL database (NESTBOX_DATABASE_URL), through knex and node-postgres. Loaded only when
 * the setting is given: a box on SQLite never loads the driver.
 *
 * Rows come back shaped as SQLite's driver shapes them, so repositories read both the same way:
 * booleans as 0/1, json/jsonb as their text, bigints as numbers while exact (a snowflake id stays
 * text, which is how repositories select ids anyway: `CAST(id AS TEXT)`).
 */
import knexFactory from 'knex';
import pg from 'pg';
import { parse } from 'pg-connection-string';
import type { Db } from './db.js';
import { ANNOUNCE_WRITES_SETTING } from './migrations/postgres/announce-writes.js';
import { serverLost } from './server-lost.js';
import { ServerWatch } from './server-watch.js';
import { WriterStatements } from './writer-statements.js';

const OID = { bool: 16, int8: 20, json: 114, jsonb: 3802 } as const;

function exactNumber(text: string): number | string {
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : text;
}

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (format === undefined || format === 'text') {
      if (oid === OID.bool) return (text: string) => (text === 't' ? 1 : 0);
      if (oid === OID.int8) return exactNumber;
      if (oid === OID.json || oid === OID.jsonb) return (text: string) => text;
    }
    return (format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text')) as (
      value: string,
    ) => unknown;
  },
};

/** How long one connection attempt may take before it counts as no answer. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * How long a connection may sit idle before its pool closes it. A connection holds the plans of
 * its prepared statements (a new one plans each statement anew on its first five calls) and is a
 * server process of its own: the pools' defaults (30 s for knex, 10 s for node-postgres) would
 * close them between the requests of a quiet instance. Five minutes, as Rails' connection pools.
 */
const IDLE_CONNECTION_MS = 5 * 60_000;

const ignore = (): void => undefined;

/** The URL each database was opened with, for the tools that take one (pg_dump). */
const urls = new WeakMap<Db, string>();

export function postgresUrlOf(db: Db): string | undefined {
  return urls.get(db);
}

/** The watch on each database's server (started by whoever needs it: the daemon, a reader). */
const watches = new WeakMap<Db, ServerWatch>();

export function serverWatchOf(db: Db): ServerWatch {
  const watch = watches.get(db);
  if (!watch) throw new Error('not a database opened by openPostgres');
  return watch;
}

/** Answers that read or only frame a transaction; any other answer (or a COMMIT's) follows a write. */
const READ_COMMANDS = new Set([
  'SELECT',
  'SHOW',
  'SET',
  'RESET',
  'BEGIN',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'LISTEN',
  'UNLISTEN',
  'EXPLAIN',
]);

/**
 * Changes that touched no row (a sweep that found nothing) change nothing outside a transaction's
 * COMMIT; but a WITH's own data changes are not in its row count.
 */
const ROW_CHANGES = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

function wrote(result: unknown, text: unknown): boolean {
  const results = (Array.isArray(result) ? result : [result]) as Array<{
    command?: unknown;
    rowCount?: unknown;
  } | null>;
  const plain = typeof text === 'string' && !/^\s*with\b/i.test(text);
  return results.some(
    (one) =>
      typeof one?.command === 'string' &&
      !READ_COMMANDS.has(one.command) &&
      !(plain && ROW_CHANGES.has(one.command) && one.rowCount === 0),
  );
}

/**
 * node-postgres for knex, each connection telling the watch when the answer to a write (or a
 * COMMIT) arrives: the write is committed then (or will be with its transaction's COMMIT, told in
 * turn). The watch also learns the connections' server processes, whose announcements (where they
 * send any) it has counted already, and hears of a connection that died (a commit's answer may have
 * died with it: a query on it failed as the server's loss, or it ended without the pool closing it).
 */
function writeTellingDriver(watch: ServerWatch): unknown {
  const statements = new WriterStatements();
  function Client(config: pg.ClientConfig): pg.Client {
    const client = new pg.Client(config) as pg.Client & { processID?: number | null };
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((...args: unknown[]) => {
      args[0] = named(args[0], statements);
      const callback = args.at(-1);
      if (typeof callback !== 'function') return query(...args);
      args[args.length - 1] = (error: unknown, result: unknown) => {
        // A query whose connection died may have committed before its answer was lost.
        if (error ? serverLost(error) : wrote(result, textOf(args[0]))) watch.bump();
        (callback as (error: unknown, result: unknown) => void)(error, result);
      };
      return query(...args);
    }) as typeof client.query;
    let closedByPool = false;
    const end = client.end.bind(client) as (...args: unknown[]) => unknown;
    client.end = ((...args: unknown[]) => {
      closedByPool = true;
      return end(...args);
    }) as typeof client.end;
    client.once('connect', () => watch.ownProcess(client.processID, true));
    client.once('end', () => {
      watch.ownProcess(client.processID, false);
      if (!closedByPool) watch.bump();
    });
    return client;
  }
  return Object.assign(Object.create(pg) as object, { Client });
}

function textOf(config: unknown): unknown {
  return typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
}

/** knex's query config `{ text, values }` with the name it is prepared under (writer-statements.ts). */
function named(config: unknown, statements: WriterStatements): unknown {
  if (typeof config !== 'object' || config === null || 'name' in config) return config;
  const { text, values } = config as pg.QueryConfig;
  const name = typeof text === 'string' ? statements.nameOf(text, values) : undefined;
  return name === undefined ? config : { ...config, name };
}

export interface PostgresOptions {
  poolSize?: number;
  /** False for a process that counts its own commits: its sessions then send no announcements. */
  announcesWrites?: boolean;
  /** How long an idle connection is kept, by this pool and by the reader's (IDLE_CONNECTION_MS). */
  idleConnectionMs?: number;
}

export function openPostgres(
  url: string,
  { poolSize = 10, announcesWrites = true, idleConnectionMs = IDLE_CONNECTION_MS }: PostgresOptions = {},
): Db {
  const options = parse(url);
  const connection = {
    ...options,
    ...(!announcesWrites && {
      options: [options.options, `-c ${ANNOUNCE_WRITES_SETTING}=off`].filter(Boolean).join(' '),
    }),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    types,
  };
  const db = knexFactory({
    client: 'pg',
    connection: connection as never,
    pool: { min: 0, max: poolSize, idleTimeoutMillis: idleConnectionMs },
    acquireConnectionTimeout: CONNECT_TIMEOUT_MS * 2,
    // knex would print every failed connection attempt on stderr; each one also rejects the query
    // that needed it, which the caller reports (and the start's wait retries) in the daemon's log.
    log: { warn: ignore, error: ignore, deprecate: ignore, debug: ignore },
  });
  urls.set(db, url);
  const watch = new ServerWatch(connection as pg.ClientConfig);
  (db.client as { driver: unknown }).driver = writeTellingDriver(watch);
  watches.set(db, watch);
  return db;
}

/**
 * Waits until the server answers a query, trying again while nobody answers, up to `deadlineMs`.
 * Returns null once it answers, or why it did not: at once for an answer that will not change by
 * waiting (a refused login, a missing database), at the deadline for silence.
 */
export async function waitForPostgres(db: Db, deadlineMs: number, retryMs = 250): Promise<string | null> {
  const deadline = Date.now() + deadlineMs;
  let last = 'no answer';
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return `no answer within ${Math.round(deadlineMs / 1000)} s (${last})`;
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), left);
      });
      await Promise.race([db.raw('select 1'), late]);
      return null;
    } catch (error) {
      last = describe(error);
      if (!serverLost(error)) return last;
    } finally {
      clearTimeout(timer);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(retryMs, Math.max(0, deadline - Date.now()))));
  }
}

/** The driver's message without knex's echo of the query (which names nothing secret, but is noise). */
function describe(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = String((error as Error)?.message ?? error).replace(/^select 1 - /, '');
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}
