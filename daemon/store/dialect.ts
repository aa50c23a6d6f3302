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
import { RENDER_VERSION_ONCE_PER_TRANSACTION } from './migrations/postgres/render-versions.js';
import { SEARCH_VECTOR, postgresSearchColumns, postgresSearchSchema, tsqueryText } from './search-fold.js';
import { serverLost } from './server-lost.js';

export type Engine = 'sqlite' | 'postgres';

/** A value that changes whenever any connection or process commits a write (the response cache's key). */
export type DataVersion = number | string;

export type SearchedTable = 'statuses' | 'accounts';

/** The pieces of a full-text search query (`Dialect.textSearch`). */
export interface TextSearch {
  from: string;
  where: string;
  id: string;
  rank: string;
}

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
  /** `idsTable` for a numbered parameter (`?2`), for queries that use one more than once or out of order. */
  idsTableOf(param: string, alias: string): string;
  /** `entriesTable` for a numbered parameter. */
  entriesTableOf(param: string, alias: string): string;
  /** The ids of one bound JSON array (`param`, default `?`) as a subquery of BIGINTs, for `x IN …`. */
  idSet(param?: string): string;
  /** The smaller of two values (SQLite's two-argument min()). */
  least(a: string, b: string): string;
  /** The text of `key` at the top of a JSON object column or expression (null when absent). */
  jsonText(json: string, key: string): string;
  /**
   * Aggregate: the values of `value` as a JSON array text, `[]` for no rows; in `orderBy`'s order
   * when given (SQLite follows its subquery's order, so give both).
   */
  jsonArrayAgg(value: string, orderBy?: string): string;
  /** A JSON array of the given values, as JSON (to nest in `jsonArrayAgg`). */
  jsonArray(values: readonly string[]): string;
  /** Aggregate: the texts of `value` joined by `separator` (a SQL text literal), null for no rows; `orderBy` as in `jsonArrayAgg`. */
  joinedText(value: string, separator: string, orderBy?: string): string;
  /** Where `needle` starts in `haystack`, from 1; 0 when absent (SQLite's instr()). */
  position(haystack: string, needle: string): string;
  /** A non-negative integer as text of at least `width` digits, zeros in front (sorts as the number). */
  zeroPadded(value: string, width: number): string;
  /**
   * `statement` with `write` (a change whose rows are not wanted) beside it, as the statements to
   * send in order (`rowsOfLast`): one on PostgreSQL (`write` in a WITH), so that the row locks of
   * both are taken in one round trip; two on SQLite (no change inside WITH), `write` first.
   */
  withWrite(write: BoundSql, statement: BoundSql): BoundSql[];
  /**
   * Whether the full-text index gives matches in id order (SQLite's FTS5: the newest are read from
   * its end). Otherwise (PostgreSQL's GIN) a search looks among the newest rows first, then among
   * the older ones by `unwalkedId`.
   */
  readonly matchesInIdOrder: boolean;
  /**
   * A full-text match's id as an expression no index is walked for, to bound and order the matches
   * older than the newest rows: PostgreSQL then reads them from the GIN index and sorts them (for a
   * word its statistics call frequent its planner walks the id index, a walk through the whole table
   * when the word's rows are all old).
   */
  unwalkedId(id: string): string;
  /**
   * A query of the columns of the instance's own tables that can hold text, as `table_name` and
   * `column_name` (neither the engine's catalog nor knex's migration records).
   */
  readonly textColumns: string;
  /**
   * The engine refused a value of the request itself: text it cannot store (PostgreSQL's text
   * holds no NUL character; SQLite keeps any), so the request is answered 400, not 500.
   */
  isUnstorableText(error: unknown): boolean;
  /** The current time as the ISO 8601 text the tables keep (`2026-01-01T00:00:00.000Z`). */
  readonly nowIso: string;
  /** The highest code point, to bound a prefix range: `x >= p AND x < p || <top>`. */
  readonly topCharacter: string;
  /**
   * Full-text search over `table` (as `alias`): what to select from, the condition on the match
   * bound at `match` (a parameter such as `?1`, bound to `textQuery(terms)`), the row's id as the
   * index keeps it, and its rank (the best match lowest).
   */
  textSearch(table: SearchedTable, alias: string, match: string): TextSearch;
  /** The match parameter for search terms (search/query.ts): each a phrase, the last a prefix. */
  textQuery(terms: readonly string[]): string;
  /** What a migration runs to index the searched text (SQLite's FTS5 tables are kept by triggers). */
  textSearchSchema(): string[];
  /** The values of `expression` over a group as JSON text of an array (`[]` for none): json_group_array. */
  jsonArrayOf(expression: string): string;
  /**
   * `column` is one of the keys (ids) of the JSON object bound at `param`: a condition that looks
   * the keys up in one index scan of `column` on PostgreSQL (`= ANY` of an array built once per
   * statement), in SQLite's set of them.
   */
  amongKeys(column: string, param: string): string;
  /**
   * Whether a statement's small lookups for each of its rows (a viewer's flags on each status) are
   * better made once for all of its rows: on PostgreSQL each correlated subquery is an executor
   * rescan per row; SQLite's are in-process B-tree steps, and its set forms build temporary tables.
   */
  readonly looksUpAllRowsAtOnce: boolean;
  /**
   * The texts of the one column `column` of the rows of `select`, in its order, joined by
   * `separator` (a SQL text literal); null for no rows. PostgreSQL collects them as an array,
   * where an ordered aggregate would sort them again per call.
   */
  joinedRows(select: string, column: string, separator: string): string;
  /**
   * Whether a page of distinct keys (the grouped notifications page) is first looked for in one
   * range scan of a few rows per key, before a walk of one index probe per key: on PostgreSQL
   * each probe is an executor rescan and a buffer-manager descent; SQLite's probes are in-process
   * B-tree steps, and its window function over the scan costs more than the walk.
   */
  readonly scansBeforeWalking: boolean;
  /**
   * The rows of `source` (a CTE) that come first for their `key` in the order `order` (e.g.
   * `n_id DESC`), unordered. PostgreSQL keeps them with DISTINCT ON, one sort and no window
   * aggregate over the sorted rows; SQLite numbers each key's rows.
   */
  firstOfEachKey(source: string, key: string, order: string): string;
  /** A JSON object of the named values (`[key, SQL expression]`), to nest in `jsonArray`. */
  jsonObjectOf(entries: ReadonlyArray<readonly [string, string]>): string;
  /**
   * A row read back from JSON this dialect built, shaped as the engine's rows are: PostgreSQL's
   * JSON keeps booleans and nested JSON, which its driver gives as 0/1 and text (`postgres.ts`).
   */
  rowFromJson(row: Record<string, unknown>): Record<string, unknown>;
  /** What a migration runs to store the searched vectors as columns (`textSearch` matches and ranks on them). */
  searchVectorColumns(): string[];
  /** A unique constraint (or unique index) refused the write. */
  isUniqueViolation(error: unknown): boolean;
  /** A foreign key refused the write (its row is gone). */
  isForeignKeyViolation(error: unknown): boolean;
  /** The database server is gone or does not answer (a request then answers 503); never on SQLite. */
  isServerLost(error: unknown): boolean;
  /**
   * Another process held SQLite's write lock past the busy timeout (a request then answers 503);
   * never on PostgreSQL, whose lock waits have no timeout here.
   */
  isBusy(error: unknown): boolean;
  /**
   * Statements (a migration's) that make a status's render version move once per transaction when
   * its mentions, tags, media or poll change: PostgreSQL's triggers made again; SQLite's bump each time.
   */
  readonly renderVersionOnce: readonly string[];
  /**
   * Ends the subquery that picks the rows a statement claims (a queue's): on PostgreSQL the rows are
   * locked and those another transaction holds passed over, so several processes claim apart; on
   * SQLite nothing (one writer at a time).
   */
  readonly skipLocked: string;
  /** Statements run after the migrations at every start (idempotent): the write announcements. */
  readonly afterMigrations: readonly string[];
}

const sqlite: Dialect = {
  engine: 'sqlite',
  idsTable: (alias) => `json_each(?) AS ${alias}`,
  entriesTable: (alias) => `json_each(?) AS ${alias}`,
  same: (a, b) => `${a} IS ${b}`,
  differs: (a, b) => `${a} IS NOT ${b}`,
  greatest: (a, b) => `max(${a}, ${b})`,
  idsTableOf: (param, alias) => `json_each(${param}) AS ${alias}`,
  entriesTableOf: (param, alias) => `json_each(${param}) AS ${alias}`,
  idSet: (param = '?') => `(SELECT CAST(ids.value AS BIGINT) FROM json_each(${param}) AS ids)`,
  least: (a, b) => `min(${a}, ${b})`,
  jsonText: (json, key) => `json_extract(${json}, '$.${key}')`,
  jsonArrayAgg: (value) => `json_group_array(${value})`,
  jsonArray: (values) => `json_array(${values.join(', ')})`,
  joinedText: (value, separator) => `group_concat(${value}, ${separator})`,
  position: (haystack, needle) => `instr(${haystack}, ${needle})`,
  zeroPadded: (value, width) => `printf('%0${width}d', ${value})`,
  withWrite: (write, statement) => [write, statement],
  matchesInIdOrder: true,
  unwalkedId: (id) => id,
  // SQLite keeps any value in any column: every column of every table.
  textColumns: `SELECT m.name AS table_name, c.name AS column_name
    FROM sqlite_master m JOIN pragma_table_info(m.name) c
    WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE 'knex_%'`,
  isUnstorableText: () => false,
  nowIso: `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  topCharacter: 'char(1114111)',
  textSearch: (table, alias, match) => ({
    from: `${table}_fts f_${alias} JOIN ${table} ${alias} ON ${alias}.id = f_${alias}.rowid`,
    where: `${table}_fts MATCH ${match}`,
    id: `f_${alias}.rowid`,
    rank: `f_${alias}.rank`,
  }),
  textQuery: (terms) => terms.map((term, i) => `"${term}"${i === terms.length - 1 ? '*' : ''}`).join(' '),
  textSearchSchema: () => [],
  jsonArrayOf: (expression) => `json_group_array(${expression})`,
  amongKeys: (column, param) => `${column} IN (SELECT CAST(keys.key AS INTEGER) FROM json_each(${param}) AS keys)`,
  looksUpAllRowsAtOnce: false,
  joinedRows: (select, column, separator) =>
    `(SELECT group_concat(${column}, ${separator}) FROM (${select}) AS joined)`,
  scansBeforeWalking: false,
  firstOfEachKey: (source, key, order) =>
    `SELECT * FROM (SELECT ${source}.*, row_number() OVER (PARTITION BY ${key} ORDER BY ${order}) AS met FROM ${source}) AS ranked WHERE met = 1`,
  jsonObjectOf: (entries) => `json_object(${entries.map(([key, value]) => `'${key}', ${value}`).join(', ')})`,
  rowFromJson: (row) => row,
  searchVectorColumns: () => [],
  isUniqueViolation: (error) => sqliteConstraint(error, /UNIQUE constraint failed|PRIMARY KEY must be unique/),
  isForeignKeyViolation: (error) => sqliteConstraint(error, /FOREIGN KEY constraint failed/),
  isServerLost: () => false,
  isBusy: (error) => (error as { code?: unknown } | null)?.code === 'SQLITE_BUSY',
  renderVersionOnce: [],
  skipLocked: '',
  afterMigrations: [],
};

/**
 * PostgreSQL's tables of a bound JSON list. The planner takes any set-returning function for 100
 * rows, and for 100 rows a hash join over a whole table (the statuses of a page: every row read and
 * hashed) costs less than 100 index lookups; it takes an array's unnest for 10, so a page's few ids
 * are looked up by index. The array is built once per statement (an InitPlan).
 */
function postgresIds(param: string, alias: string): string {
  return `unnest(ARRAY(SELECT jsonb_array_elements_text(CAST(${param} AS jsonb)))) AS ${alias}(value)`;
}

function postgresEntries(param: string, alias: string): string {
  return `unnest(ARRAY(SELECT e FROM jsonb_each_text(CAST(${param} AS jsonb)) AS e)) AS ${alias}(key text, value text)`;
}

const postgres: Dialect = {
  engine: 'postgres',
  idsTable: (alias) => postgresIds('?', alias),
  entriesTable: (alias) => postgresEntries('?', alias),
  same: (a, b) => `${a} IS NOT DISTINCT FROM ${b}`,
  differs: (a, b) => `${a} IS DISTINCT FROM ${b}`,
  greatest: (a, b) => `greatest(${a}, ${b})`,
  idsTableOf: postgresIds,
  entriesTableOf: postgresEntries,
  idSet: (param = '?') => `(SELECT CAST(ids.value AS BIGINT) FROM ${postgresIds(param, 'ids')})`,
  least: (a, b) => `least(${a}, ${b})`,
  jsonText: (json, key) => `(CAST(${json} AS jsonb) ->> '${key}')`,
  // json, not jsonb: the text is only read back, and jsonb builds a binary form first.
  jsonArrayAgg: (value, orderBy) =>
    `coalesce(json_agg(${value}${orderBy ? ` ORDER BY ${orderBy}` : ''}), CAST('[]' AS json))`,
  jsonArray: (values) => `json_build_array(${values.join(', ')})`,
  joinedText: (value, separator, orderBy) =>
    `string_agg(CAST(${value} AS TEXT), ${separator}${orderBy ? ` ORDER BY ${orderBy}` : ''})`,
  position: (haystack, needle) => `strpos(${haystack}, ${needle})`,
  zeroPadded: (value, width) => `lpad(CAST(${value} AS TEXT), ${width}, '0')`,
  withWrite: (write, statement) => [
    { sql: `WITH beside AS (${write.sql}) ${statement.sql}`, bindings: [...write.bindings, ...statement.bindings] },
  ],
  matchesInIdOrder: false,
  unwalkedId: (id) => `(${id} + 0)`,
  textColumns: `SELECT c.table_name, c.column_name
    FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
      AND c.table_name NOT LIKE 'knex_%' AND c.data_type IN ('text', 'character varying')`,
  // 22021: a NUL in a text parameter; 22P05: `\u0000` in JSON cast to jsonb.
  isUnstorableText: (error) => ['22021', '22P05'].includes(postgresCode(error) ?? ''),
  nowIso: `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  topCharacter: 'chr(1114111)',
  textSearch: (table, alias, match) => {
    const vector = `${alias}.${SEARCH_VECTOR}`;
    const query = `to_tsquery('simple', ${match})`;
    return {
      from: `${table} ${alias}`,
      // The statuses index leaves reblogs out, as SQLite's FTS5 table does.
      where: `${vector} @@ ${query}${table === 'statuses' ? ` AND ${alias}.reblog_of_id IS NULL` : ''}`,
      id: `${alias}.id`,
      rank: `-ts_rank_cd(${vector}, ${query})`,
    };
  },
  textQuery: tsqueryText,
  textSearchSchema: postgresSearchSchema,
  jsonArrayOf: (expression) => `coalesce(CAST(json_agg(${expression}) AS text), '[]')`,
  amongKeys: (column, param) =>
    `${column} = ANY(ARRAY(SELECT CAST(keys.key AS BIGINT) FROM jsonb_object_keys(CAST(${param} AS jsonb)) AS keys(key)))`,
  looksUpAllRowsAtOnce: true,
  joinedRows: (select, _column, separator) => `nullif(array_to_string(ARRAY(${select}), ${separator}), '')`,
  scansBeforeWalking: true,
  firstOfEachKey: (source, key, order) =>
    `SELECT DISTINCT ON (${key}) ${source}.* FROM ${source} ORDER BY ${key}, ${order}`,
  jsonObjectOf: (entries) => {
    // json_build_object takes at most 100 arguments.
    if (entries.length > 50) throw new Error(`jsonObjectOf: ${entries.length} entries, at most 50`);
    return `json_build_object(${entries.map(([key, value]) => `'${key}', ${value}`).join(', ')})`;
  },
  rowFromJson: (row) => {
    for (const [key, value] of Object.entries(row)) {
      if (typeof value === 'boolean') row[key] = value ? 1 : 0;
      else if (value !== null && typeof value === 'object') row[key] = JSON.stringify(value);
    }
    return row;
  },
  searchVectorColumns: postgresSearchColumns,
  isUniqueViolation: (error) => postgresCode(error) === '23505',
  isForeignKeyViolation: (error) => postgresCode(error) === '23503',
  isServerLost: serverLost,
  isBusy: () => false,
  renderVersionOnce: RENDER_VERSION_ONCE_PER_TRANSACTION,
  skipLocked: 'FOR UPDATE SKIP LOCKED',
  afterMigrations: ANNOUNCE_WRITES,
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

/** A statement's text (`?` for each binding) and its bindings. */
export interface BoundSql {
  sql: string;
  bindings: readonly unknown[];
}

/** Sends `statements` in order in `db` (a transaction, for more than one); the last one's rows. */
export async function rowsOfLast<T>(db: Knex, statements: readonly BoundSql[]): Promise<T[]> {
  let rows: T[] = [];
  for (const { sql, bindings } of statements) rows = await rawRows<T>(db, sql, bindings);
  return rows;
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
