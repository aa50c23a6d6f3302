/**
 * What differs between the two engines the store runs on (SQLite, PostgreSQL), in one place:
 * repositories ask `dialectOf(db)` for the SQL pieces and error tests below and never branch on
 * the engine themselves. Everything else is written once: `ON CONFLICT … DO UPDATE / DO NOTHING`
 * with `excluded.`, `RETURNING`, `CAST(id AS TEXT)`, `TRUE`/`FALSE` (SQLite reads them as 1 and 0),
 * and knex's builder (`onConflict().merge()`, `returning()`), which both engines take as they are.
 *
 * Rows look the same from both: the PostgreSQL driver gives booleans as 0/1, JSON as its text and
 * bigints as numbers while they are exact (`postgres.ts`), as SQLite's driver gives them.
 */
import type { Knex } from 'knex';
import { ANNOUNCE_WRITES } from './migrations/postgres/announce-writes.js';
import { serverLost } from './server-lost.js';

export type Engine = 'sqlite' | 'postgres';

/** A value that changes whenever any connection or process commits a write (the response cache's key). */
export type DataVersion = number | string;

export interface Dialect {
  readonly engine: Engine;
  /**
   * A table of the ids in one bound parameter (`alias.value`, as text: compare it as
   * `CAST(alias.value AS BIGINT)`, which both engines read as a 64-bit integer). Bind `idList(ids)`.
   */
  idsTable(alias: string): string;
  /**
   * A table of the entries of a JSON object in one bound parameter (`alias.key`, `alias.value`,
   * both compared through CAST as above). Bind `JSON.stringify(object)`.
   */
  entriesTable(alias: string): string;
  /** `a` equals `b`, nulls equal to each other (SQLite's `IS`). */
  same(a: string, b: string): string;
  /** `a` differs from `b`, a null differing from any value (SQLite's `IS NOT`). */
  differs(a: string, b: string): string;
  /** The larger of two values (SQLite's two-argument max()). */
  greatest(a: string, b: string): string;
  /** The current time as the ISO 8601 text the tables keep (`2026-01-01T00:00:00.000Z`). */
  readonly nowIso: string;
  /** The highest code point, to bound a prefix range: `x >= p AND x < p || <top>`. */
  readonly topCharacter: string;
  /** A unique constraint (or unique index) refused the write. */
  isUniqueViolation(error: unknown): boolean;
  /** A foreign key refused the write (its row is gone). */
  isForeignKeyViolation(error: unknown): boolean;
  /** The database server is gone or does not answer (a request then answers 503); never on SQLite. */
  isServerLost(error: unknown): boolean;
  /** Statements run after the migrations at every start (idempotent): the write announcements. */
  readonly afterMigrations: readonly string[];
  /** The query that reads the data version (one row, one column `version`). */
  readonly dataVersionQuery: string;
}

const sqlite: Dialect = {
  engine: 'sqlite',
  idsTable: (alias) => `json_each(?) AS ${alias}`,
  entriesTable: (alias) => `json_each(?) AS ${alias}`,
  same: (a, b) => `${a} IS ${b}`,
  differs: (a, b) => `${a} IS NOT ${b}`,
  greatest: (a, b) => `max(${a}, ${b})`,
  nowIso: `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  topCharacter: 'char(1114111)',
  isUniqueViolation: (error) => sqliteConstraint(error, /UNIQUE constraint failed|PRIMARY KEY must be unique/),
  isForeignKeyViolation: (error) => sqliteConstraint(error, /FOREIGN KEY constraint failed/),
  isServerLost: () => false,
  afterMigrations: [],
  // Moves when another connection (the writer, another process) commits; always asked of one connection.
  dataVersionQuery: 'PRAGMA data_version',
};

const postgres: Dialect = {
  engine: 'postgres',
  idsTable: (alias) => `jsonb_array_elements_text(CAST(? AS jsonb)) AS ${alias}(value)`,
  entriesTable: (alias) => `jsonb_each_text(CAST(? AS jsonb)) AS ${alias}(key, value)`,
  same: (a, b) => `${a} IS NOT DISTINCT FROM ${b}`,
  differs: (a, b) => `${a} IS DISTINCT FROM ${b}`,
  greatest: (a, b) => `greatest(${a}, ${b})`,
  nowIso: `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  topCharacter: 'chr(1114111)',
  isUniqueViolation: (error) => postgresCode(error) === '23505',
  isForeignKeyViolation: (error) => postgresCode(error) === '23503',
  isServerLost: serverLost,
  afterMigrations: ANNOUNCE_WRITES,
  // The cluster's snapshot: a commit of the newest transaction moves its upper bound, a commit of an
  // older one takes it off its in-progress list, and a read (no transaction id) changes neither.
  dataVersionQuery: 'SELECT pg_current_snapshot()::text AS version',
};

const DIALECTS: Record<Engine, Dialect> = { sqlite, postgres };

/**
 * A unique violation from either engine, for code that holds an error but not the database (the
 * engine's own code, never the text of its message, on PostgreSQL).
 */
export function isUniqueViolation(error: unknown): boolean {
  return sqlite.isUniqueViolation(error) || postgres.isUniqueViolation(error);
}

/** The rows of a raw query: knex gives SQLite's as an array and PostgreSQL's inside a result. */
export async function rawRows<T>(db: Knex, sql: string, bindings: readonly unknown[] = []): Promise<T[]> {
  const result = (await db.raw(sql, bindings as Knex.RawBinding[])) as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}

/** The one bound parameter of `idsTable`: the same JSON text for both engines. */
export function idList(ids: readonly (string | number | bigint)[]): string {
  return JSON.stringify(ids.map(String));
}

/** The engine behind a knex instance (or transaction). */
export function engineOf(db: Knex): Engine {
  const client = (db.client as { config?: { client?: unknown } }).config?.client;
  return client === 'pg' || client === 'postgres' || client === 'postgresql' ? 'postgres' : 'sqlite';
}

export function dialectOf(db: Knex): Dialect {
  return DIALECTS[engineOf(db)];
}

export function dialectFor(engine: Engine): Dialect {
  return DIALECTS[engine];
}

function sqliteConstraint(error: unknown, message: RegExp): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT' && message.test(error.message);
}

function postgresCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
