/**
 * The floor of a database query on this machine, before any Nestbox code: `SELECT 1` through
 * node-postgres on a throwaway PostgreSQL cluster (Unix socket, as a box with a local server
 * would connect), beside the same through sqlite3 on a WAL file. p50/p99 at one client (one
 * connection, queries back to back) and queries per second at 16 clients (a pool of 16 for
 * PostgreSQL; SQLite's single connection, which is what the daemon has for writes). Bare pg with a
 * named (prepared) statement, and knex over pg as the daemon queries.
 *
 *   npm run bench -- query-floor [--queries 4000] [--seconds 3]
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDatabase } from '../../daemon/store/db.js';
import { openPostgres } from '../../daemon/store/postgres.js';
import { tempDir } from '../../test/helpers/paths.js';
import type { Bench } from './index.js';
import { BenchCluster } from './postgres-cluster.js';
import { throughput } from './probes.js';
import { percentile, report, round, type Figure } from './stats.js';

export const bench: Bench = {
  description: 'the floor of a bare query: SELECT 1 through pg (throwaway cluster) and sqlite3',
  run,
};

type Query = () => Promise<unknown>;

async function latencies(query: Query, count: number): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < Math.min(200, count); i++) await query();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    await query();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function figuresOf(engine: string, one: Query, many: Query, queries: number, seconds: number): Promise<Figure[]> {
  const { p50, p99 } = await latencies(one, queries);
  const qps = await throughput(many, 16, seconds);
  return [
    { metric: `${engine}_select1_p50_ms`, value: round(p50, 3), unit: 'ms' },
    { metric: `${engine}_select1_p99_ms`, value: round(p99, 3), unit: 'ms' },
    { metric: `${engine}_select1_qps_16`, value: Math.round(qps), unit: 'q/s' },
  ];
}

async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { queries: { type: 'string' }, seconds: { type: 'string' } } });
  const queries = Number(values.queries ?? 4000);
  const seconds = Number(values.seconds ?? 3);
  const figures: Figure[] = [];
  const cluster = await BenchCluster.start();
  try {
    const url = await cluster.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const pool = new pg.Pool({ connectionString: url, max: 16 });
    try {
      const prepared = { name: 'floor', text: 'SELECT 1 AS one' };
      figures.push(
        ...(await figuresOf(
          'pg',
          () => client.query(prepared),
          () => pool.query(prepared),
          queries,
          seconds,
        )),
      );
      // The daemon's own path: knex over node-postgres, a pool of 16.
      const knex = openPostgres(url, { poolSize: 16 });
      const query = () => knex.raw('SELECT 1 AS one');
      figures.push(...(await figuresOf('pg_knex', query, query, queries, seconds)));
      await knex.destroy();
    } finally {
      await client.end();
      await pool.end();
    }
  } finally {
    await cluster.stop();
  }
  const dir = tempDir('nestbox-bench-');
  const db = openDatabase({ filename: join(dir.path, 'floor.sqlite3') });
  try {
    const query = () => db.raw('SELECT 1 AS one');
    figures.push(...(await figuresOf('sqlite_knex', query, query, queries, seconds)));
  } finally {
    await db.destroy();
    dir.remove();
  }
  report('query-floor', figures);
}
