/**
 * A migrated SQLite file for a test, copied from one template: migrating a new file costs about
 * half a second of CPU, and the suites open a few hundred of them. The template is made once per
 * test run in the runner's scratch folder (TEST_SCRATCH_DIR), or once per process without it.
 * A copy is exactly what a first migration leaves: the migrations create only schema and fixed rows.
 */
import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../daemon/store/db.js';
import { MIGRATIONS } from '../../daemon/store/migrations/index.js';

let template: Promise<string> | undefined;

/** Puts a migrated database at `filename` (which must not exist yet). */
export async function placeMigratedDatabase(filename: string): Promise<void> {
  copyFileSync(await (template ??= makeTemplate()), filename);
}

/** Opens a migrated database at `filename` (a new file), as the daemon's writer. */
export async function openMigratedDatabase(filename: string): Promise<Db> {
  await placeMigratedDatabase(filename);
  return (await loadStore()).openDatabase({ filename });
}

async function makeTemplate(): Promise<string> {
  const path = join(scratchFolder(), `migrated-${MIGRATIONS.length}-${MIGRATIONS.at(-1)?.name ?? 'none'}.sqlite3`);
  if (existsSync(path)) return path;
  // Test processes of one run may make it at once: each writes its own file, the rename is atomic.
  const own = `${path}.${process.pid}`;
  const { openDatabase, migrate } = await loadStore();
  const db = openDatabase({ filename: own });
  try {
    await migrate(db);
  } finally {
    await db.destroy();
  }
  // Closing the last connection checkpoints the WAL into the file; a WAL left behind would not move with it.
  if (existsSync(`${own}-wal`)) throw new Error(`the template database kept its WAL: ${own}-wal`);
  renameSync(own, path);
  return path;
}

/**
 * knex and the migrations, loaded when a database is opened here: a suite that only copies the
 * template for its daemon (test/helpers/daemon.ts) would otherwise pay a fifth of a second of CPU
 * loading them.
 */
async function loadStore() {
  const [{ openDatabase }, { migrate }] = await Promise.all([
    import('../../daemon/store/db.js'),
    import('../../daemon/store/migrate.js'),
  ]);
  return { openDatabase, migrate };
}

function scratchFolder(): string {
  const shared = process.env.TEST_SCRATCH_DIR;
  if (shared && existsSync(shared)) return shared;
  const own = mkdtempSync(join(tmpdir(), 'nestbox-test-template-'));
  process.once('exit', () => rmSync(own, { recursive: true, force: true }));
  return own;
}
