/**
 * The query planner's table statistics (sqlite_stat1), kept current with SQLite's own
 * `PRAGMA optimize`: it runs ANALYZE only on tables never analyzed or grown or shrunk about
 * tenfold since, each over a bounded sample, so a run costs milliseconds when little changed.
 * Without it the statistics are whatever someone last measured: stats taken when a table held
 * one row made SQLite scan it (oauth_apps per status, oauth_tokens per request) once it held many.
 *
 * Readers see new statistics when they open: the daemon refreshes them before its readers open,
 * and periodically for the next start (a refresh at stop as well would only repeat the next
 * start's, and lengthen the stop).
 */
import type { Db } from './db.js';
import { engineOf } from './dialect.js';

/**
 * Every table, not only those this connection has queried (0x10000): the writer connection that
 * runs this does not read most of them, the read-only connections do.
 */
const ALL_TABLES = 0x10002;

/** Brings the statistics up to date where they are missing or stale; returns how long it took (ms). */
export async function refreshStatistics(db: Db): Promise<number> {
  // PostgreSQL's autovacuum keeps its own statistics current.
  if (engineOf(db) === 'postgres') return 0;
  const started = performance.now();
  await db.raw(`PRAGMA optimize = ${ALL_TABLES}`);
  return Math.round(performance.now() - started);
}
