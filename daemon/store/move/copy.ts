/**
 * One table copied from SQLite into PostgreSQL in batches (one statement per batch: each column's
 * values as one array parameter, unnest() making them rows), and read back from PostgreSQL for the
 * checksum the copy is verified with.
 */
import type { Knex } from 'knex';
import type { Db } from '../db.js';
import { rawRows } from '../dialect.js';
import { TableChecksum, textOf } from './checksum.js';
import { quoted, readPages, type SourceTable } from './source.js';
import type { TargetColumn } from './target.js';

export interface TableCopy {
  rows: number;
  checksum: string;
}

/** A value read from SQLite as the parameter PostgreSQL's column takes. */
function parameter(column: TargetColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.kind === 'boolean') return Number(value) !== 0;
  if (column.kind === 'real') return Number(value);
  if (column.kind === 'bytes') return value;
  return textOf(value);
}

/** Integers are read as text on both engines: a snowflake is past what a JS number holds exactly. */
function selected(column: TargetColumn): string {
  return column.kind === 'integer' ? `CAST(${quoted(column.name)} AS TEXT)` : quoted(column.name);
}

export async function copyTable(
  source: Db,
  trx: Knex,
  table: SourceTable,
  columns: readonly TargetColumn[],
  batchRows: number,
  progress: (rows: number) => void,
): Promise<TableCopy> {
  const checksum = new TableChecksum(columns.map((column) => column.kind));
  const insert = `INSERT INTO ${quoted(table.name)} (${columns.map((column) => quoted(column.name)).join(', ')})
    SELECT * FROM unnest(${columns.map((column) => `CAST(? AS ${column.type}[])`).join(', ')})`;
  for await (const page of readPages(source, table, columns.map(selected), batchRows)) {
    const arrays = columns.map((column, i) => page.map((row) => parameter(column, row[i])));
    await trx.raw(insert, arrays as unknown as Knex.RawBinding[]);
    for (const row of page) checksum.add(row);
    progress(checksum.rows);
  }
  return { rows: checksum.rows, checksum: checksum.value };
}

/** The table as PostgreSQL now holds it, read through a cursor in batches. */
export async function targetChecksum(
  trx: Knex,
  table: string,
  columns: readonly TargetColumn[],
  batchRows: number,
): Promise<TableCopy> {
  const checksum = new TableChecksum(columns.map((column) => column.kind));
  const list = columns.map((column, i) => `${selected(column)} AS v${i}`).join(', ');
  await trx.raw(`DECLARE move_check NO SCROLL CURSOR FOR SELECT ${list} FROM ${quoted(table)}`);
  try {
    for (;;) {
      const rows = await rawRows<Record<string, unknown>>(
        trx,
        `FETCH FORWARD ${Math.trunc(batchRows)} FROM move_check`,
      );
      for (const row of rows) checksum.add(columns.map((_, i) => row[`v${i}`]));
      if (rows.length < batchRows) break;
    }
  } finally {
    await trx.raw('CLOSE move_check');
  }
  return { rows: checksum.rows, checksum: checksum.value };
}
