/**
 * The same suite on both engines: a migrated SQLite file and a migrated PostgreSQL database
 * (test/helpers/postgres-database.ts), one of each per suite file, opened on first use.
 *
 *   const databases = new EngineDatabases();
 *   test.after(() => databases.close());
 *   for (const engine of ENGINES) test(`… (${engine})`, async () => { const db = await databases.get(engine); … });
 */
import { join } from 'node:path';
import type { Db } from '../../daemon/store/db.js';
import type { Engine } from '../../daemon/store/dialect.js';
import { migrate } from '../../daemon/store/migrate.js';
import { openPostgres } from '../../daemon/store/postgres.js';
import { openMigratedDatabase } from './migrated-database.js';
import { tempDir } from './paths.js';
import { createPostgresDatabase } from './postgres-database.js';

export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

export interface EngineDatabase {
  engine: Engine;
  db: Db;
  /** The SQLite file, or the PostgreSQL database's URL. */
  location: string;
  close(): Promise<void>;
}

/** A migrated database on `engine`, of the caller's own. */
export async function openMigrated(engine: Engine): Promise<EngineDatabase> {
  if (engine === 'postgres') {
    const database = await createPostgresDatabase();
    const db = openPostgres(database.url);
    // Made from the migrated template: this finds every migration applied and changes nothing.
    await migrate(db);
    return {
      engine,
      db,
      location: database.url,
      close: async () => {
        await db.destroy();
        await database.drop();
      },
    };
  }
  const dir = tempDir();
  const location = join(dir.path, 'nestbox.sqlite3');
  const db = await openMigratedDatabase(location);
  return {
    engine,
    db,
    location,
    close: async () => {
      await db.destroy();
      dir.remove();
    },
  };
}

/** One migrated database per engine for a suite file, opened when a test first asks for it. */
export class EngineDatabases {
  private readonly opened = new Map<Engine, Promise<EngineDatabase>>();

  async get(engine: Engine): Promise<Db> {
    return (await this.open(engine)).db;
  }

  open(engine: Engine): Promise<EngineDatabase> {
    let database = this.opened.get(engine);
    if (!database) this.opened.set(engine, (database = openMigrated(engine)));
    return database;
  }

  async close(): Promise<void> {
    const all = [...this.opened.values()];
    this.opened.clear();
    for (const database of all) await (await database).close();
  }
}
