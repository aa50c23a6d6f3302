/**
 * The daemon's database, as the configuration says: PostgreSQL when NESTBOX_DATABASE_URL is set
 * (the SQLite file is then neither opened nor made), else the SQLite file under the data
 * directory. The PostgreSQL driver is loaded only then.
 */
import { join } from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { withoutCredentials } from './database-url.js';
import { openDatabase, type Db } from './db.js';
import { engineOf } from './dialect.js';
import type { ServerWatch } from './server-watch.js';

/** How long a start waits for a PostgreSQL server that does not answer (yet). */
export const POSTGRES_START_DEADLINE_MS = 30_000;

export type StoreConfig = Pick<Config, 'dataDir' | 'sqliteSynchronous' | 'databaseUrl' | 'sources'>;

/** The SQLite file of a box on SQLite. */
export function sqliteFile(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'nestbox.sqlite3');
}

export interface OpenStoreOptions {
  /** How long a PostgreSQL server that does not answer (yet) is waited for. */
  deadlineMs?: number;
  /** How long a SQLite write waits for another connection's (db.ts's default unless given). */
  busyTimeoutMs?: number;
  /**
   * Whether this process's PostgreSQL commits are announced to the others (default true). The
   * daemon counts its own commits and turns its announcements off (`migrations/postgres/announce-writes.ts`).
   */
  announcesWrites?: boolean;
}

/**
 * Opens the database. A PostgreSQL server that refuses (a login, a missing database) or does not
 * answer within `deadlineMs` is a ConfigError naming the setting: the daemon exits 2 with one line.
 */
export async function openStore(config: StoreConfig, options: OpenStoreOptions = {}): Promise<Db> {
  const { deadlineMs = POSTGRES_START_DEADLINE_MS, busyTimeoutMs, announcesWrites = true } = options;
  if (!config.databaseUrl)
    return openDatabase({ filename: sqliteFile(config), synchronous: config.sqliteSynchronous, busyTimeoutMs });
  const { openPostgres, waitForPostgres } = await import('./postgres.js');
  const db = openPostgres(config.databaseUrl, { announcesWrites });
  const problem = await waitForPostgres(db, deadlineMs);
  if (problem === null) return db;
  await db.destroy();
  const given = config.sources.databaseUrl ?? { name: 'NESTBOX_DATABASE_URL', source: 'environment' };
  throw new ConfigError(
    given.name,
    withoutCredentials(config.databaseUrl),
    `a PostgreSQL server that lets the daemon in (${problem})`,
    given.source,
  );
}

/** The watch on the database server (`server-watch.ts`), or null on SQLite: a file has no server to lose. */
export async function serverWatch(db: Db): Promise<ServerWatch | null> {
  if (engineOf(db) !== 'postgres') return null;
  const { serverWatchOf } = await import('./postgres.js');
  return serverWatchOf(db);
}
