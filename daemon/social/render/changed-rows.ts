/**
 * The read behind the versioned caches: rows of a query with `id`, `version` and `known` columns,
 * each with its version and the `alsoSelect` columns, and its `columns` as an object only where
 * `known` is not already the row's version (there `row` is null). The whole result is one JSON
 * text, not a driver row per row, whose per-row cost would be most of such a query (on PostgreSQL
 * also a protocol message per row to read on the main thread); unchanged rows cost a few index
 * lookups, and a CASE leaves the columns' subqueries unevaluated for them. Built once per query
 * and engine, so the reader finds its prepared statement by the same string every time.
 */
import { dialectFor, type Dialect, type Engine } from '../../store/dialect.js';
import type { Params, Reader } from '../store/reader.js';
import type { ChangedRow } from './versioned-cache.js';

export class ChangedRowsQuery<Row, Extra extends Record<string, unknown> = Record<string, never>> {
  private readonly texts = new Map<Engine, string>();

  /** `sql`: the query, or the query for a dialect where the engines' texts differ. */
  constructor(
    private readonly sql: string | ((dialect: Dialect) => string),
    private readonly columns: readonly string[],
    private readonly alsoSelect: ReadonlyArray<keyof Extra & string> = [],
  ) {}

  private text(dialect: Dialect): string {
    let text = this.texts.get(dialect.engine);
    if (text !== undefined) return text;
    const inner = typeof this.sql === 'string' ? this.sql : this.sql(dialect);
    const row = dialect.jsonObjectOf(this.columns.map((name) => [name, `q.${name}`]));
    const tuple = dialect.jsonArray([
      'q.id',
      'q.version',
      ...this.alsoSelect.map((name) => `q.${name}`),
      `CASE WHEN ${dialect.same('q.version', 'q.known')} THEN NULL ELSE ${row} END`,
    ]);
    text = `SELECT ${dialect.jsonArrayOf(tuple)} AS j FROM (${inner}) AS q`;
    this.texts.set(dialect.engine, text);
    return text;
  }

  async run(reader: Reader, params: Params): Promise<Array<ChangedRow<Row> & Extra>> {
    const dialect = dialectFor(reader.engine);
    const rows = await reader.all<{ j: string }>(this.text(dialect), params);
    const tuples = JSON.parse(rows[0]?.j ?? '[]') as unknown[][];
    return tuples.map((tuple) => {
      const extra: Record<string, unknown> = {};
      this.alsoSelect.forEach((name, i) => {
        extra[name] = tuple[i + 2];
      });
      const fields = tuple[tuple.length - 1] as Record<string, unknown> | null;
      const row = fields && dialect.rowFromJson(fields);
      return { ...dialect.rowFromJson(extra), id: tuple[0], version: tuple[1], row } as ChangedRow<Row> & Extra;
    });
  }
}
