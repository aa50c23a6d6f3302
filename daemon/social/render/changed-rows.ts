/**
 * The read behind the versioned caches: rows of a query with `id`, `version` and `known` columns,
 * each with its version and the `alsoSelect` columns, and its `columns` as an object only where
 * `known` is not already the row's version (there `row` is null). The whole result is one JSON
 * text, not a driver row per row, whose per-row cost would be most of such a query (on PostgreSQL
 * also a protocol message per row to read on the main thread); unchanged rows cost a few index
 * lookups, and a CASE leaves the columns' subqueries unevaluated for them. Built once per query,
 * engine and first parameter, so the reader finds its prepared statement by the same string every
 * time. Two such queries can be asked in one statement (`ChangedRowsPair`): one round trip.
 */
import { dialectFor, type Dialect, type Engine } from '../../store/dialect.js';
import type { Params, Reader } from '../store/reader.js';
import type { ChangedRow } from './versioned-cache.js';

/** A query's SQL for a dialect, its parameter n written `param(n)` (numbered from 1). */
export type ChangedRowsSql = (dialect: Dialect, param: (n: number) => string) => string;

export class ChangedRowsQuery<Row, Extra extends Record<string, unknown> = Record<string, never>> {
  private readonly texts = new Map<string, string>();

  constructor(
    private readonly sql: ChangedRowsSql,
    private readonly columns: readonly string[],
    private readonly alsoSelect: ReadonlyArray<keyof Extra & string> = [],
  ) {}

  /** The query as one JSON text, its parameters numbered from `first`. */
  text(dialect: Dialect, first = 1): string {
    const shape = `${dialect.engine} ${first}`;
    let text = this.texts.get(shape);
    if (text !== undefined) return text;
    const inner = this.sql(dialect, (n) => `?${n + first - 1}`);
    const row = dialect.jsonObjectOf(this.columns.map((name) => [name, `q.${name}`]));
    const tuple = dialect.jsonArray([
      'q.id',
      'q.version',
      ...this.alsoSelect.map((name) => `q.${name}`),
      `CASE WHEN ${dialect.same('q.version', 'q.known')} THEN NULL ELSE ${row} END`,
    ]);
    text = `SELECT ${dialect.jsonArrayOf(tuple)} AS j FROM (${inner}) AS q`;
    this.texts.set(shape, text);
    return text;
  }

  /** The rows of the query's JSON text. */
  rowsOf(dialect: Dialect, json: string | undefined): Array<ChangedRow<Row> & Extra> {
    const tuples = JSON.parse(json ?? '[]') as unknown[][];
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

  async run(reader: Reader, params: Params): Promise<Array<ChangedRow<Row> & Extra>> {
    const dialect = dialectFor(reader.engine);
    const rows = await reader.all<{ j: string }>(this.text(dialect), params);
    return this.rowsOf(dialect, rows[0]?.j);
  }
}

/** Two changed-rows queries asked in one statement, the second's parameters after the first's. */
export class ChangedRowsPair<
  RowA,
  ExtraA extends Record<string, unknown>,
  RowB,
  ExtraB extends Record<string, unknown> = Record<string, never>,
> {
  private readonly texts = new Map<Engine, string>();

  /** `firstParams`: how many parameters the first query takes. */
  constructor(
    private readonly first: ChangedRowsQuery<RowA, ExtraA>,
    private readonly firstParams: number,
    private readonly second: ChangedRowsQuery<RowB, ExtraB>,
  ) {}

  async run(
    reader: Reader,
    firstParams: Params,
    secondParams: Params,
  ): Promise<[Array<ChangedRow<RowA> & ExtraA>, Array<ChangedRow<RowB> & ExtraB>]> {
    if (firstParams.length !== this.firstParams) throw new Error(`${this.firstParams} parameters expected`);
    const dialect = dialectFor(reader.engine);
    let text = this.texts.get(dialect.engine);
    if (text === undefined) {
      const second = this.second.text(dialect, this.firstParams + 1);
      text = `SELECT (${this.first.text(dialect)}) AS a, (${second}) AS b`;
      this.texts.set(dialect.engine, text);
    }
    const [row] = await reader.all<{ a: string; b: string }>(text, [...firstParams, ...secondParams]);
    return [this.first.rowsOf(dialect, row?.a), this.second.rowsOf(dialect, row?.b)];
  }
}
