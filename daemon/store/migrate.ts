/**
 * Migrations run at start-up, compiled with the daemon (no files read from disk at run time).
 * knex applies all pending migrations in one transaction, so a failing migration leaves the
 * database exactly as it was; running again when nothing is pending changes nothing.
 */
import type { Knex } from 'knex';
import type { Db } from './db.js';
import { dialectOf, engineOf } from './dialect.js';
import { migrationsFor, type Migration } from './migrations/index.js';

class ListSource implements Knex.MigrationSource<Migration> {
  constructor(private readonly migrations: readonly Migration[]) {}
  async getMigrations(): Promise<Migration[]> {
    return [...this.migrations];
  }
  getMigrationName(migration: Migration): string {
    return migration.name;
  }
  async getMigration(migration: Migration): Promise<Knex.Migration> {
    return {
      up: migration.up,
      down:
        migration.down ??
        (async () => {
          throw new Error(`${migration.name} cannot be undone`);
        }),
    };
  }
}

export interface MigrateResult {
  applied: string[];
}

export async function migrate(
  db: Db,
  migrations: readonly Migration[] = migrationsFor(engineOf(db)),
): Promise<MigrateResult> {
  assertOrdered(migrations);
  let applied: string[] = [];
  if (!(await allApplied(db, migrations)))
    [, applied] = (await db.migrate.latest({ migrationSource: new ListSource(migrations) })) as [number, string[]];
  for (const statement of dialectOf(db).afterMigrations) await db.raw(statement);
  return { applied };
}

/**
 * True when the database has applied exactly `migrations` (one query): a start on a migrated
 * database then skips knex's migrator, its lock and its transaction. Anything else (a new database,
 * pending migrations, one this build does not know) goes to knex, which applies or refuses.
 */
async function allApplied(db: Db, migrations: readonly Migration[]): Promise<boolean> {
  if (!(await db.schema.hasTable('knex_migrations'))) return false;
  const applied = new Set<string>(await db('knex_migrations').pluck('name'));
  return applied.size === migrations.length && migrations.every((migration) => applied.has(migration.name));
}

function assertOrdered(migrations: readonly Migration[]): void {
  const names = migrations.map((m) => m.name);
  const sorted = [...names].sort();
  if (names.some((name, i) => name !== sorted[i]) || new Set(names).size !== names.length) {
    throw new Error('migrations must be listed once each, in name order');
  }
}
