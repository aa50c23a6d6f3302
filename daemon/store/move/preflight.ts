/**
 * What SQLite kept and PostgreSQL will refuse, found before anything is copied: values of the
 * wrong type for their column (SQLite's columns take anything), text with NUL or invalid UTF-8,
 * JSON PostgreSQL cannot parse, integers out of a column's range, and rows that a unique key
 * tells apart on SQLite but not on PostgreSQL (a case-folded key, an id stored once as text).
 */
import type { Db } from '../db.js';
import { quoted, type SourceTable } from './source.js';
import type { TargetColumn, TargetSchema, UniqueKey } from './target.js';

/** How many findings are listed (each kind of finding is counted in full). */
const LISTED = 50;

const INT_RANGE: Record<string, [string, string]> = {
  int2: ['-32768', '32767'],
  int4: ['-2147483648', '2147483647'],
};

const NON_ASCII = `GLOB '*[^' || char(1) || '-' || char(127) || ']*'`;

/** Each check: the rows it finds (a WHERE condition on column `c`) and what is wrong with them. */
function checksFor(column: TargetColumn): Array<{ where: string; problem: string }> {
  const c = quoted(column.name);
  const present = `typeof(${c}) <> 'null'`;
  switch (column.kind) {
    case 'integer': {
      const checks = [{ where: `typeof(${c}) NOT IN ('integer', 'null')`, problem: `not an integer (${column.type})` }];
      const range = INT_RANGE[column.type];
      if (range)
        checks.push({
          where: `typeof(${c}) = 'integer' AND ${c} NOT BETWEEN ${range[0]} AND ${range[1]}`,
          problem: `out of ${column.type}'s range`,
        });
      return checks;
    }
    case 'boolean':
      return [{ where: `${present} AND ${c} NOT IN (0, 1)`, problem: 'not a boolean (0 or 1)' }];
    case 'json':
      return [
        { where: `${present} AND json_valid(${c}) = 0`, problem: 'not valid JSON' },
        { where: `${present} AND instr(${c}, '\\u0000') > 0`, problem: 'JSON holding \\u0000 (jsonb refuses it)' },
      ];
    case 'real':
      return [{ where: `typeof(${c}) NOT IN ('integer', 'real', 'null')`, problem: 'not a number' }];
    case 'bytes':
      return [{ where: `typeof(${c}) NOT IN ('blob', 'null')`, problem: 'not bytes' }];
    case 'text':
      return [
        { where: `typeof(${c}) = 'blob'`, problem: 'bytes in a text column' },
        { where: `typeof(${c}) = 'text' AND instr(${c}, char(0)) > 0`, problem: 'text holding NUL' },
      ];
  }
}

function rowLabel(table: SourceTable): string {
  const keys = table.keys.map((key) => (key.name === 'rowid' ? 'rowid' : quoted(key.name)));
  return keys.map((key) => `CAST(${key} AS TEXT)`).join(` || ',' || `);
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

function validUtf8(bytes: Buffer): boolean {
  try {
    fatalUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The findings for one table's columns. */
async function columnProblems(db: Db, table: SourceTable, columns: readonly TargetColumn[]): Promise<string[]> {
  const found: string[] = [];
  const label = rowLabel(table);
  const from = quoted(table.name);
  for (const column of columns) {
    for (const check of checksFor(column)) {
      const rows = await db.raw<
        Array<{
          row: string;
        }>
      >(`SELECT ${label} AS row FROM ${from} WHERE ${check.where} LIMIT ${LISTED}`);
      for (const row of rows) found.push(`${table.name}.${column.name} (row ${row.row}): ${check.problem}`);
    }
    if (column.kind !== 'text' && column.kind !== 'json') continue;
    const c = quoted(column.name);
    // Only text with bytes past ASCII can be invalid UTF-8: those rows' bytes are read and checked.
    const candidates = await db.raw<Array<{ row: string; bytes: Buffer }>>(
      `SELECT ${label} AS row, CAST(${c} AS BLOB) AS bytes FROM ${from} WHERE typeof(${c}) = 'text' AND ${c} ${NON_ASCII}`,
    );
    for (const candidate of candidates)
      if (!validUtf8(candidate.bytes)) found.push(`${table.name}.${column.name} (row ${candidate.row}): invalid UTF-8`);
  }
  return found;
}

/** A unique key's part as SQLite computes it: PostgreSQL's casts dropped, plain columns as their target type. */
function sqlitePart(part: string, columns: readonly TargetColumn[]): string {
  const plain = columns.find((column) => column.name === part || quoted(column.name) === part);
  if (plain) return plain.kind === 'integer' ? `CAST(${quoted(plain.name)} AS INTEGER)` : quoted(plain.name);
  return part.replace(/::[a-z ]+/g, '');
}

async function duplicateProblems(db: Db, key: UniqueKey, columns: readonly TargetColumn[]): Promise<string[]> {
  const parts = key.parts.map((part) => sqlitePart(part, columns));
  // PostgreSQL's unique keys let rows with a null part through, any number of them.
  const conditions = [
    ...parts.map((part) => `${part} IS NOT NULL`),
    ...(key.where ? [sqlitePart(key.where, columns)] : []),
  ];
  const rows = await db.raw<Array<Record<string, unknown>>>(
    `SELECT ${parts.map((part, i) => `${part} AS p${i}`).join(', ')}, count(*) AS n FROM ${quoted(key.table)}
     WHERE ${conditions.join(' AND ')} GROUP BY ${parts.join(', ')} HAVING count(*) > 1 LIMIT ${LISTED}`,
  );
  return rows.map(
    (row) =>
      `${key.table}: ${String(row.n)} rows share ${key.name} (${key.parts.map((part, i) => `${part} = ${JSON.stringify(row[`p${i}`])}`).join(', ')}); PostgreSQL keeps one`,
  );
}

/** Every finding, as lines for the owner; none means the copy can start. */
export async function preflight(
  db: Db,
  tables: ReadonlyMap<string, SourceTable>,
  schema: TargetSchema,
): Promise<string[]> {
  const found: string[] = [];
  for (const [name, columns] of schema.tables) {
    const table = tables.get(name);
    if (table) found.push(...(await columnProblems(db, table, columns)));
  }
  for (const key of schema.uniqueKeys) {
    const columns = schema.tables.get(key.table);
    if (columns && tables.has(key.table)) found.push(...(await duplicateProblems(db, key, columns)));
  }
  return found;
}
