/**
 * The engine's own check that a database is whole, for the crash tests: SQLite's
 * `PRAGMA integrity_check`, and on PostgreSQL amcheck's `bt_index_check` over every B-tree index
 * of the schema with `heapallindexed` (each index consistent, and every row of its table found in
 * it). The test cluster's user is a superuser, so the extension can be made in the test's database.
 */
import type { Db } from '../../daemon/store/db.js';
import { engineOf, rawRows } from '../../daemon/store/dialect.js';

/** What the check found wrong: empty when the database is whole. */
export async function integrityProblems(db: Db): Promise<string[]> {
  if (engineOf(db) === 'sqlite') {
    const rows = await rawRows<{ integrity_check: string }>(db, 'PRAGMA integrity_check');
    return rows.map((row) => row.integrity_check).filter((text) => text !== 'ok');
  }
  await db.raw('CREATE EXTENSION IF NOT EXISTS amcheck');
  const indexes = await rawRows<{ name: string }>(
    db,
    `SELECT c.relname AS name FROM pg_index i
      JOIN pg_class c ON c.oid = i.indexrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_am am ON am.oid = c.relam
    WHERE n.nspname = 'public' AND am.amname = 'btree' AND i.indisvalid`,
  );
  const problems: string[] = [];
  for (const { name } of indexes) {
    try {
      await db.raw(`SELECT bt_index_check(to_regclass(?), TRUE)`, [`public."${name}"`]);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  }
  if (indexes.length === 0) problems.push('no index was checked');
  return problems;
}
