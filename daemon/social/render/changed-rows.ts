/**
 * The read behind the versioned caches: rows of a query with `id`, `version` and `known` columns,
 * each with its version and the `alsoSelect` columns, and its `columns` as an object only where
 * `known` is not already the row's version (there `row` is null). SQLite builds the whole result
 * as one JSON text, not a driver row per row, whose per-row cost would be most of such a query;
 * unchanged rows cost a few index lookups. Built once per query (a module constant), so the
 * reader finds its prepared statement by the same string every time.
 */
import type { Params, Reader } from '../store/reader.js';
import type { ChangedRow } from './versioned-cache.js';

export class ChangedRowsQuery<Row, Extra extends Record<string, unknown> = Record<string, never>> {
  private readonly sql: string;

  constructor(
    sql: string,
    columns: readonly string[],
    private readonly alsoSelect: ReadonlyArray<keyof Extra & string> = [],
  ) {
    const extra = alsoSelect.map((name) => `q.${name}, `).join('');
    const row = `json_object(${columns.map((name) => `'${name}', q.${name}`).join(', ')})`;
    this.sql = `SELECT json_group_array(json_array(q.id, q.version, ${extra}CASE WHEN q.version IS q.known THEN NULL ELSE ${row} END)) AS j
      FROM (${sql}) AS q`;
  }

  async run(reader: Reader, params: Params): Promise<Array<ChangedRow<Row> & Extra>> {
    const rows = await reader.all<{ j: string }>(this.sql, params);
    const tuples = JSON.parse(rows[0]?.j ?? '[]') as unknown[][];
    return tuples.map((tuple) => {
      const out: Record<string, unknown> = { id: tuple[0], version: tuple[1], row: tuple[tuple.length - 1] };
      this.alsoSelect.forEach((name, i) => {
        out[name] = tuple[i + 2];
      });
      return out as ChangedRow<Row> & Extra;
    });
  }
}
