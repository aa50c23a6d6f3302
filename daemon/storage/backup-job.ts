/**
 * The scheduled database backup: skipped (with a warning) when the copy would eat the space the
 * database itself needs; a full disk found on the way is reported to the storage monitor.
 */
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import { backupDatabase, databaseBytes } from '../store/backup.js';
import type { Db } from '../store/db.js';
import { MIB, type StorageMonitor } from './monitor.js';
import { isOutOfSpace } from './out-of-space.js';

export interface BackupJobOptions {
  db: Db;
  dataDir: string;
  minFreeMb: number;
  keep: number;
  storage: StorageMonitor;
  log: Logger;
}

export function backupJob({ db, dataDir, minFreeMb, keep, storage, log }: BackupJobOptions): () => Promise<void> {
  return async () => {
    // A copy as large as the database must not take the space the database itself needs.
    const needed = (await databaseBytes(db, join(dataDir, 'nestbox.sqlite3'))) + minFreeMb * MIB;
    const free = await storage.free();
    if (free < needed) {
      log.warn('backup skipped: not enough free space', { free_bytes: free, needed_bytes: needed });
      return;
    }
    try {
      const result = await backupDatabase(db, join(dataDir, 'backups'), keep);
      log.info('database backed up', { path: result.path, bytes: result.bytes, removed: result.removed.length });
    } catch (error) {
      if (isOutOfSpace(error)) storage.outOfSpace();
      throw error;
    }
  };
}
