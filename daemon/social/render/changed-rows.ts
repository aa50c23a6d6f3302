/**
 * The read behind the versioned caches: rows of a query with `id`, `version` and `known` columns,
 * each with its version and the `alsoSelect` columns, and its `columns` as an object only where
 * `known` is not already the row's version (there `row` is null). SQLite builds the whole result
 * as one JSON text, not a driver row per row, whose per-row cost would be most of such a query;
 * unchanged rows cost a few index lookups. PostgreSQL returns plain rows (its JSON would turn
 * booleans and jsonb columns into other shapes than the renderers read), the `columns` of an
 * unchanged row as nulls: a CASE leaves their subqueries unevaluated there, as on SQLite. Built once per query (a module constant), so the reader finds its prepared
 * statement by the same string every time.
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

  private text(engine: Engine): string {
    let text = this.texts.get(engine);
    if (text !== undefined) return text;
    const dialect = dialectFor(engine);
    const inner = typeof this.sql === 'string' ? this.sql : this.sql(dialect);
    if (engine === 'postgres') {
      const unchanged = dialect.same('q.version', 'q.known');
      const always = ['id', 'version', ...this.alsoSelect];
      const changedOnly = this.columns
        .filter((name) => !always.includes(name))
        .map((name) => `CASE WHEN ${unchanged} THEN NULL ELSE q.${name} END AS ${name}`);
      text = `SELECT ${[...always.map((name) => `q.${name}`), ...changedOnly].join(', ')}, (${unchanged}) AS unchanged
      FROM (${inner}) AS q`;
    } else {
      const extra = this.alsoSelect.map((name) => `q.${name}, `).join('');
      const row = `json_object(${this.columns.map((name) => `'${name}', q.${name}`).join(', ')})`;
      text = `SELECT json_group_array(json_array(q.id, q.version, ${extra}CASE WHEN q.version IS q.known THEN NULL ELSE ${row} END)) AS j
      FROM (${inner}) AS q`;
    }
    this.texts.set(engine, text);
    return text;
  }

  async run(reader: Reader, params: Params): Promise<Array<ChangedRow<Row> & Extra>> {
    if (reader.engine === 'postgres') return this.runRows(reader, params);
    const rows = await reader.all<{ j: string }>(this.text('sqlite'), params);
    const tuples = JSON.parse(rows[0]?.j ?? '[]') as unknown[][];
    return tuples.map((tuple) => {
      const out: Record<string, unknown> = { id: tuple[0], version: tuple[1], row: tuple[tuple.length - 1] };
      this.alsoSelect.forEach((name, i) => {
        out[name] = tuple[i + 2];
      });
      return out as ChangedRow<Row> & Extra;
    });
  }

  private async runRows(reader: Reader, params: Params): Promise<Array<ChangedRow<Row> & Extra>> {
    const rows = await reader.all<Record<string, unknown>>(this.text('postgres'), params);
    return rows.map((found) => {
      let row: Record<string, unknown> | null = null;
      if (!found.unchanged) {
        row = {};
        for (const name of this.columns) row[name] = found[name];
      }
      const out: Record<string, unknown> = { id: found.id, version: found.version, row };
      for (const name of this.alsoSelect) out[name] = found[name];
      return out as ChangedRow<Row> & Extra;
    });
  }
}
