import { join } from 'node:path';
import { openDatabase, type Db } from '../../daemon/store/db.js';
import { tempDir } from './paths.js';

/** Runs `use` on a fresh SQLite file in a temporary folder (not migrated), then closes and removes both. */
export async function withTempDatabase(use: (db: Db, dir: string) => Promise<void>): Promise<void> {
  const dir = tempDir();
  const db = openDatabase({ filename: join(dir.path, 'test.sqlite3') });
  try {
    await use(db, dir.path);
  } finally {
    await db.destroy();
    dir.remove();
  }
}
