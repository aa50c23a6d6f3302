/**
 * Numbered placeholders (`?1`, `?2`, a parameter used more than once) for knex's raw queries, which
 * take only `?` in order on PostgreSQL: each `?N` becomes `?` with its value repeated in place.
 * SQLite would take `?N` as it is; doing the same on both keeps one text. The reader (social/store/
 * reader.ts) takes `?N` itself.
 */
import type { Knex } from 'knex';
import { rawRows } from './dialect.js';

/** The same query with plain `?` placeholders and the bindings in their order; quoted text untouched. */
export function positional(sql: string, bindings: readonly unknown[]): { sql: string; bindings: unknown[] } {
  const ordered: unknown[] = [];
  let next = 0;
  const text = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?(\d+)?/g, (match, number: string | undefined) => {
    if (match[0] === "'" || match[0] === '"') return match;
    const index = number === undefined ? next++ : Number(number) - 1;
    if (index >= bindings.length) throw new Error(`no binding for placeholder ${match}`);
    ordered.push(bindings[index]);
    return '?';
  });
  return { sql: text, bindings: ordered };
}

/** `rawRows` for a query with numbered placeholders. */
export function numberedRows<T>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<T[]> {
  const query = positional(sql, bindings);
  return rawRows<T>(db, query.sql, query.bindings);
}
