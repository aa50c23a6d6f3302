/**
 * The engine a test's daemon stores on. `TEST_ENGINE=postgres` (the runner sets it for the second
 * run of each suite in test/both-engines.txt) gives every daemon that would start on a copy of the
 * migrated SQLite database a fresh PostgreSQL database of the run's cluster instead
 * (NESTBOX_DATABASE_URL), made from the migrated template. The database belongs to the daemon's data
 * folder: a daemon restarted on the same folder, and the admin tool run on it, find it again.
 */
import type { Engine } from '../../daemon/store/dialect.js';
import type { TestPostgres } from './postgres-database.js';

/** The variable the runner sets; unset (or anything else) is SQLite. */
export const TEST_ENGINE_VARIABLE = 'TEST_ENGINE';

export function testEngine(): Engine {
  return process.env[TEST_ENGINE_VARIABLE] === 'postgres' ? 'postgres' : 'sqlite';
}

/** Each data folder's PostgreSQL database, while it is in use. */
const byDataDir = new Map<string, TestPostgres>();

/** The NESTBOX_DATABASE_URL of the daemon on `dataDir`, if it stores on PostgreSQL. */
export function databaseUrlOf(dataDir: string): string | undefined {
  return byDataDir.get(dataDir)?.url;
}

/** Gives `dataDir` a fresh PostgreSQL database; its URL. */
export async function placePostgresDatabase(dataDir: string): Promise<string> {
  // Loaded here, not on import: pg and knex cost every suite that starts a daemon a third of a
  // second of CPU, and only the PostgreSQL runs use them.
  const { createPostgresDatabase } = await import('./postgres-database.js');
  const database = await createPostgresDatabase();
  byDataDir.set(dataDir, database);
  return database.url;
}

/** Drops the database of `dataDir` (its folder is going away). */
export async function dropDatabaseOf(dataDir: string): Promise<void> {
  const database = byDataDir.get(dataDir);
  byDataDir.delete(dataDir);
  await database?.drop();
}

// A folder the test keeps past its daemon's stop (to start again on it) keeps its database until the
// test process ends; a suite run alone also stops its own cluster with the last one dropped.
process.on('beforeExit', () => {
  const left = [...byDataDir.keys()];
  if (left.length > 0) void Promise.all(left.map(dropDatabaseOf));
});
