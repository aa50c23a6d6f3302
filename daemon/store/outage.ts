/**
 * Why a failed database call met the database's state rather than a fault of the caller: the server
 * gone or not answering (PostgreSQL; /healthz reports it), or another process holding the write
 * lock past the busy timeout (SQLite). A request that meets either answers 503; a scheduled job
 * says so in a line instead of logging an error.
 */
import type { Db } from './db.js';
import { dialectOf } from './dialect.js';

/** The outage `error` shows, in words for a log line; null when it is not one. */
export function databaseOutage(db: Db): (error: unknown) => string | null {
  const dialect = dialectOf(db);
  return (error) => {
    if (dialect.isServerLost(error)) return 'the database does not answer';
    if (dialect.isBusy(error)) return 'the database is locked by another process';
    return null;
  };
}
