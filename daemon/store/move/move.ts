/**
 * `npm run admin -- move-to-postgres URL`: the box's SQLite database copied whole into an empty
 * PostgreSQL database, in one transaction (a move that stops half way leaves the target empty, so
 * it can simply be run again). The SQLite file is read under its exclusive lock and never written
 * (beyond the migrations a start of the daemon would also run); media files and the settings file
 * stay where they are.
 */
import type { Knex } from 'knex';
import type { Db } from '../db.js';
import { postgresUrlProblem, withoutCredentials } from '../database-url.js';
import { migrate } from '../migrate.js';
import { copyTable, targetChecksum, type TableCopy } from './copy.js';
import { preflight } from './preflight.js';
import { MoveRefused } from './refusal.js';
import { openSource, sourceTables, type SourceTable } from './source.js';
import {
  gatherStatistics,
  setSequences,
  targetSchema,
  triggersOff,
  triggersOn,
  userTables,
  type TargetColumn,
} from './target.js';

/** How long the target server may take to answer before the move gives up. */
const CONNECT_DEADLINE_MS = 15_000;
/** Progress lines at most this often per table. */
const PROGRESS_EVERY_MS = 1000;

export interface MoveOptions {
  sqliteFile: string;
  url: string;
  batchRows: number;
  /** One line of progress (stderr: the password never appears in it). */
  progress: (line: string) => void;
}

export interface MovedTable extends TableCopy {
  table: string;
}

async function openTarget(url: string): Promise<Db> {
  const problem = postgresUrlProblem(url);
  if (problem) throw new MoveRefused(`${withoutCredentials(url)} is not a PostgreSQL URL: ${problem}`);
  const { openPostgres, waitForPostgres } = await import('../postgres.js');
  // One connection: the whole move is one transaction on it.
  const db = openPostgres(url, { poolSize: 1 });
  const unreachable = await waitForPostgres(db, CONNECT_DEADLINE_MS);
  if (unreachable) {
    await db.destroy();
    throw new MoveRefused(`cannot use ${withoutCredentials(url)}: ${unreachable}`);
  }
  return db;
}

/** The same tables on both sides, or the move cannot be a copy. */
function pairTables(source: ReadonlyMap<string, SourceTable>, target: ReadonlyMap<string, TargetColumn[]>): void {
  const onlySource = [...source.keys()].filter((name) => !target.has(name));
  const onlyTarget = [...target.keys()].filter((name) => !source.has(name));
  const columnsDiffer = [...target].filter(([name, columns]) => {
    const names = new Set(source.get(name)?.columns.map((column) => column.name) ?? []);
    return source.has(name) && columns.some((column) => !names.has(column.name));
  });
  if (onlySource.length + onlyTarget.length + columnsDiffer.length === 0) return;
  throw new MoveRefused('the SQLite schema and the PostgreSQL migrations do not match (a build mismatch)', [
    ...onlySource.map((name) => `only in SQLite: ${name}`),
    ...onlyTarget.map((name) => `only in PostgreSQL: ${name}`),
    ...columnsDiffer.map(([name]) => `columns differ: ${name}`),
  ]);
}

async function copyAll(
  source: Db,
  trx: Knex,
  tables: ReadonlyMap<string, SourceTable>,
  target: ReadonlyMap<string, TargetColumn[]>,
  options: MoveOptions,
): Promise<MovedTable[]> {
  const moved: MovedTable[] = [];
  for (const [name, columns] of target) {
    let shown = Date.now();
    const copy = await copyTable(source, trx, tables.get(name)!, columns, options.batchRows, (rows) => {
      if (Date.now() - shown < PROGRESS_EVERY_MS) return;
      shown = Date.now();
      options.progress(`${name}: ${rows} rows…`);
    });
    options.progress(`${name}: ${copy.rows} rows copied`);
    moved.push({ table: name, ...copy });
  }
  return moved;
}

async function verify(
  trx: Knex,
  moved: readonly MovedTable[],
  target: ReadonlyMap<string, TargetColumn[]>,
  batchRows: number,
) {
  const wrong: string[] = [];
  for (const table of moved) {
    const copied = await targetChecksum(trx, table.table, target.get(table.table)!, batchRows);
    if (copied.rows !== table.rows || copied.checksum !== table.checksum)
      wrong.push(
        `${table.table}: SQLite ${table.rows} rows, checksum ${table.checksum}; PostgreSQL ${copied.rows} rows, checksum ${copied.checksum}`,
      );
  }
  if (wrong.length) throw new MoveRefused('the copy does not match the SQLite database: nothing was kept', wrong);
}

export async function moveToPostgres(options: MoveOptions): Promise<MovedTable[]> {
  const target = await openTarget(options.url);
  let source: Db | null = null;
  try {
    const present = await userTables(target);
    if (present.length)
      throw new MoveRefused(
        `${withoutCredentials(options.url)} already holds ${present.length} table(s) (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', …' : ''}): the move needs an empty database`,
      );
    source = await openSource(options.sqliteFile);
    const tables = await sourceTables(source);
    const from = source;
    const copied = await target.transaction(async (trx) => {
      await triggersOff(trx).catch((error: unknown) => {
        throw new MoveRefused(
          `the PostgreSQL role cannot turn triggers off for the copy (${(error as Error).message}): run the move as the database's superuser, or GRANT SET ON PARAMETER session_replication_role`,
        );
      });
      await triggersOn(trx);
      await migrate(trx);
      const schema = await targetSchema(trx);
      pairTables(tables, schema.tables);
      const problems = await preflight(from, tables, schema);
      if (problems.length)
        throw new MoveRefused(
          `${problems.length} value(s) in the SQLite database that PostgreSQL would refuse; fix them and run the move again (nothing was written)`,
          problems,
        );
      options.progress(`schema built; copying ${schema.tables.size} tables`);
      await triggersOff(trx);
      const moved = await copyAll(from, trx, tables, schema.tables, options);
      for (const [name, columns] of schema.tables) await setSequences(trx, name, columns);
      await triggersOn(trx);
      options.progress('verifying row counts and checksums');
      await verify(trx, moved, schema.tables, options.batchRows);
      return moved;
    });
    options.progress('gathering planner statistics');
    await gatherStatistics(target);
    return copied;
  } finally {
    await source?.destroy();
    await target.destroy();
  }
}
