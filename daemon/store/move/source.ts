/**
 * The SQLite side of a move: the box's file opened on one connection that takes SQLite's exclusive
 * lock and keeps it to the end, so nothing writes while the rows are read (and a daemon that holds
 * the file makes the move stop at once instead of copying a moving target).
 */
import { existsSync } from 'node:fs';
import type { Knex } from 'knex';
import { openDatabase, type Db } from '../db.js';
import { migrate } from '../migrate.js';
import { MoveRefused } from './refusal.js';

/** How long the lock is waited for: long enough for a command that just ended, not for a daemon. */
const LOCK_WAIT_MS = 2000;

/** Opens `file`, takes its exclusive lock (refusing while the daemon holds it) and migrates it. */
export async function openSource(file: string): Promise<Db> {
  if (!existsSync(file)) throw new MoveRefused(`no SQLite database at ${file} (nothing to move)`);
  const db = openDatabase({ filename: file, busyTimeoutMs: LOCK_WAIT_MS, exclusive: true });
  try {
    // In exclusive locking mode the lock taken here is kept until the connection closes.
    await db.raw('BEGIN EXCLUSIVE');
    await db.raw('COMMIT');
  } catch (error) {
    await db.destroy();
    if (/SQLITE_BUSY|database is locked/.test(String((error as Error).message)))
      throw new MoveRefused(`the daemon (or another command) has ${file} open: stop it first (systemctl stop nestbox)`);
    throw error;
  }
  // The tables must be those the PostgreSQL migrations build: bring a file from an older build up to date.
  await migrate(db);
  return db;
}

export interface SourceColumn {
  name: string;
  /** The declared type (its affinity decides how a key is compared). */
  type: string;
  /** Part of the primary key (1-based position), 0 when not. */
  pk: number;
}

export interface SourceTable {
  name: string;
  columns: SourceColumn[];
  /** Keyset paging: rowid, or the primary key of a WITHOUT ROWID table. */
  keys: SourceColumn[];
}

/** Tables of SQLite's own (full-text indexes and their shadow tables, the migration log) stay behind. */
export async function sourceTables(db: Db): Promise<Map<string, SourceTable>> {
  const rows = await db.raw<Array<{ name: string; type: string; wr: number }>>(
    `SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main' AND name NOT LIKE 'sqlite_%'`,
  );
  const virtual = rows.filter((row) => row.type === 'virtual').map((row) => row.name);
  const tables = new Map<string, SourceTable>();
  for (const row of rows) {
    if (row.type !== 'table' || row.name.startsWith('knex_migrations')) continue;
    if (virtual.some((name) => row.name.startsWith(`${name}_`))) continue;
    const columns = await db.raw<SourceColumn[]>(`SELECT name, type, pk FROM pragma_table_info(?)`, [row.name]);
    const keys = row.wr ? columns.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk) : [ROWID];
    tables.set(row.name, { name: row.name, columns, keys });
  }
  return tables;
}

const ROWID: SourceColumn = { name: 'rowid', type: 'INTEGER', pk: 1 };

export function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Reads `table` in pages of `rows`, in key order, each column through the given SQL expression
 * (`c` stands for the quoted column): exact ids as text, everything else as stored.
 */
export async function* readPages(
  db: Db,
  table: SourceTable,
  expressions: string[],
  rows: number,
): AsyncGenerator<unknown[][]> {
  // Integer keys travel as text both ways: a snowflake is past what a JS number holds exactly.
  const integer = table.keys.map((key) => /INT/i.test(key.type));
  const keys = table.keys.map((key) => (key === ROWID ? 'rowid' : quoted(key.name)));
  const keyList = keys.length > 1 ? `(${keys.join(', ')})` : keys[0];
  const after = `(${integer.map((isInteger) => (isInteger ? 'CAST(? AS INTEGER)' : '?')).join(', ')})`;
  const select = `SELECT ${keys
    .map((key, i) => `${integer[i] ? `CAST(${key} AS TEXT)` : key} AS k${i}`)
    .join(
      ', ',
    )}, ${expressions.map((expression, i) => `${expression} AS v${i}`).join(', ')} FROM ${quoted(table.name)}`;
  let last: unknown[] | null = null;
  for (;;) {
    const where: string = last ? ` WHERE ${keyList} > ${after}` : '';
    const page: Array<Record<string, unknown>> = await db.raw<Array<Record<string, unknown>>>(
      `${select}${where} ORDER BY ${keys.join(', ')} LIMIT ?`,
      [...(last ?? []), rows] as Knex.RawBinding[],
    );
    if (page.length === 0) return;
    yield page.map((row) => expressions.map((_, i) => row[`v${i}`]));
    const end = page[page.length - 1];
    last = keys.map((_, i) => end[`k${i}`]);
    if (page.length < rows) return;
  }
}
