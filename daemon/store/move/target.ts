/**
 * The PostgreSQL side of a move: an empty database checked, its schema built by the PostgreSQL
 * migrations inside the move's transaction, and what the copy needs to know of it (each table's
 * columns and types, unique keys, sequences).
 */
import type { Knex } from 'knex';
import { rawRows } from '../dialect.js';
import { quoted } from './source.js';

export type ColumnKind = 'integer' | 'boolean' | 'json' | 'real' | 'bytes' | 'text';

export interface TargetColumn {
  name: string;
  kind: ColumnKind;
  /** PostgreSQL's type name (int4, int8, jsonb…), for messages and range checks. */
  type: string;
  /** Filled by a sequence (identity or serial): set past the copied ids afterwards. */
  sequenced: boolean;
}

export interface UniqueKey {
  table: string;
  name: string;
  /** Each key part as PostgreSQL prints it (a column, or an expression such as lower(email)). */
  parts: string[];
  /** The partial index's condition, if any. */
  where: string | null;
}

export interface TargetSchema {
  tables: Map<string, TargetColumn[]>;
  uniqueKeys: UniqueKey[];
}

function kindOf(type: string): ColumnKind {
  if (type === 'int2' || type === 'int4' || type === 'int8') return 'integer';
  if (type === 'bool') return 'boolean';
  if (type === 'json' || type === 'jsonb') return 'json';
  if (type === 'float4' || type === 'float8' || type === 'numeric') return 'real';
  if (type === 'bytea') return 'bytes';
  return 'text';
}

/** The tables of a database other than PostgreSQL's own catalogs (any schema). */
export async function userTables(db: Knex): Promise<string[]> {
  const rows = await rawRows<{ name: string }>(
    db,
    `SELECT schemaname || '.' || tablename AS name FROM pg_tables
     WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
  );
  return rows.map((row) => row.name);
}

/** The schema the migrations built (public schema), read from the catalog; generated columns are the server's to fill. */
export async function targetSchema(trx: Knex): Promise<TargetSchema> {
  const columns = await rawRows<{ table: string; name: string; type: string; sequenced: number }>(
    trx,
    `SELECT c.relname AS table, a.attname AS name, t.typname AS type,
            (a.attidentity <> '' OR coalesce(pg_get_expr(d.adbin, d.adrelid), '') LIKE 'nextval(%') AS sequenced
     FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
     JOIN pg_type t ON t.oid = a.atttypid
     LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
     WHERE c.relkind = 'r' AND c.relname NOT LIKE 'knex\\_migrations%'
     ORDER BY c.relname, a.attnum`,
  );
  const tables = new Map<string, TargetColumn[]>();
  for (const column of columns) {
    const list = tables.get(column.table) ?? [];
    list.push({
      name: column.name,
      type: column.type,
      kind: kindOf(column.type),
      sequenced: Boolean(column.sequenced),
    });
    tables.set(column.table, list);
  }
  const keys = await rawRows<{ table: string; name: string; parts: string; where: string | null }>(
    trx,
    `SELECT c.relname AS table, i.relname AS name,
            (SELECT json_agg(pg_get_indexdef(x.indexrelid, k, true) ORDER BY k)::text
             FROM generate_series(1, x.indnkeyatts) AS k) AS parts,
            pg_get_expr(x.indpred, x.indrelid, true) AS where
     FROM pg_index x
     JOIN pg_class i ON i.oid = x.indexrelid
     JOIN pg_class c ON c.oid = x.indrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
     WHERE x.indisunique AND c.relname NOT LIKE 'knex\\_migrations%'
     ORDER BY c.relname, i.relname`,
  );
  const uniqueKeys = keys.map((key) => ({ ...key, parts: JSON.parse(key.parts) as string[] }));
  return { tables, uniqueKeys };
}

/**
 * Triggers off for the rest of the transaction: derived rows (home feeds, conversations, render
 * versions) are copied as they are instead of being made again, and foreign keys are not checked
 * row by row (SQLite checked them when the rows were written).
 */
export async function triggersOff(trx: Knex): Promise<void> {
  await trx.raw('SET LOCAL session_replication_role = replica');
}

export async function triggersOn(trx: Knex): Promise<void> {
  await trx.raw('SET LOCAL session_replication_role = DEFAULT');
}

/**
 * Planner statistics for the copied tables (a database filled in one transaction has none until
 * autovacuum gets to it, and until then the planner guesses row counts, as after pg_restore), and
 * a vacuum with them: the full-text GIN indexes took the copied rows into their pending lists, which
 * every search reads through until a VACUUM merges them (a plain ANALYZE does not), and the
 * visibility map it sets lets index-only scans skip the heap.
 */
export async function gatherStatistics(db: Knex): Promise<void> {
  await db.raw('VACUUM (ANALYZE)');
}

/** Each sequence set so that its next value is past the largest copied id. */
export async function setSequences(trx: Knex, table: string, columns: readonly TargetColumn[]): Promise<void> {
  for (const column of columns.filter((c) => c.sequenced)) {
    await trx.raw(
      `SELECT setval(pg_get_serial_sequence(?, ?), coalesce((SELECT max(${quoted(column.name)}) FROM ${quoted(table)}), 0) + 1, false)`,
      [quoted(table), column.name],
    );
  }
}
