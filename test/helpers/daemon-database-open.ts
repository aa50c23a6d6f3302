/**
 * The database of a test's daemon opened beside it, on whichever engine the daemon stores. A module
 * of its own so that only the suites that read the daemon's rows load knex and pg.
 */
import { join } from 'node:path';
import { openDatabase, type Db } from '../../daemon/store/db.js';
import { openPostgres } from '../../daemon/store/postgres.js';
import { databaseUrlOf } from './daemon-database.js';

/**
 * The database of the daemon on `dataDir` (on SQLite, WAL lets this reader in while the daemon
 * writes); the caller destroys it.
 */
export function openDaemonDatabase(dataDir: string): Db {
  const url = databaseUrlOf(dataDir);
  return url ? openPostgres(url, { poolSize: 2 }) : openDatabase({ filename: join(dataDir, 'nestbox.sqlite3') });
}
