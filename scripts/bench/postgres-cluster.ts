/**
 * `--database postgres` for the benchmarks: a throwaway PostgreSQL cluster (the tests' own:
 * initdb in a temporary folder, a Unix socket there) and the seeded SQLite data moved into a
 * database of it with the admin tool's move, so both engines serve the same rows. Unlike the
 * tests' cluster it keeps PostgreSQL's durable defaults (`DURABLE`): SQLite's daemon syncs every
 * commit to the disk (`NESTBOX_SQLITE_SYNCHRONOUS=full`), so the server must too for the figures to
 * compare; `--fast-commits` measures without (the tests' settings). It also keeps PostgreSQL's
 * own buffer pool size (`BUFFER_POOL`), where the tests' cluster takes a quarter of it.
 */
import pg from 'pg';
import { join } from 'node:path';
import { moveToPostgres } from '../../daemon/store/move/move.js';
import { startPostgresCluster, type PostgresCluster } from '../../test/helpers/postgres-cluster.js';
import { pinServer, type CoreSplit } from './server-core.js';
import { serverPid } from './server-cpu.js';

export type BenchDatabase = 'sqlite' | 'postgres';

/** Every acknowledged commit on the disk, as SQLite's `synchronous = FULL` (PostgreSQL's defaults). */
const DURABLE = ['fsync=on', 'synchronous_commit=on', 'full_page_writes=on'];

/**
 * initdb's default (and Debian's). With the tests' 32 MB the benches' databases do not fit, and
 * the server keeps reading pages back from the kernel's cache (writing out dirty ones to make
 * room), where SQLite reads the file's pages straight from that cache.
 */
const BUFFER_POOL = ['shared_buffers=128MB'];

/** `--database sqlite|postgres|both` (default sqlite): the engines a benchmark runs on, SQLite first. */
export function databasesOf(value: string | undefined): BenchDatabase[] {
  if (value === undefined || value === 'sqlite') return ['sqlite'];
  if (value === 'postgres' || value === 'both') return ['sqlite', 'postgres'];
  throw new Error(`--database takes sqlite, postgres or both, not ${value}`);
}

export interface MovedDatabase {
  url: string;
  rows: number;
  ms: number;
}

export class BenchCluster {
  private made = 0;
  private constructor(private readonly cluster: PostgresCluster) {}

  /**
   * `settings`: more server settings (`name=value`), as startClusterIn takes them; `durable` false:
   * the tests' settings (fsync and synchronous commits off); `split`: the server moved to a core of
   * its own (server-core.ts).
   */
  static async start(
    settings: readonly string[] = [],
    durable = true,
    split: CoreSplit | null = null,
  ): Promise<BenchCluster> {
    const cluster = await startPostgresCluster([...BUFFER_POOL, ...(durable ? DURABLE : []), ...settings]);
    if (split) pinServer(split, await serverPid(cluster.url));
    return new BenchCluster(cluster);
  }

  get url(): string {
    return this.cluster.url;
  }

  /** A new empty database of the cluster. */
  async createDatabase(): Promise<string> {
    const name = `bench_${process.pid}_${++this.made}`;
    const admin = new pg.Client({ connectionString: this.cluster.url });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    return this.cluster.urlOf(name);
  }

  /** The SQLite database of the data folder `dataDir` moved into a new database of the cluster. */
  async moveFrom(dataDir: string, batchRows = 5000): Promise<MovedDatabase> {
    const url = await this.createDatabase();
    const started = Date.now();
    const moved = await moveToPostgres({
      sqliteFile: join(dataDir, 'nestbox.sqlite3'),
      url,
      batchRows,
      progress: (line) => process.stderr.write(`[bench] move: ${line}\n`),
    });
    return { url, rows: moved.reduce((sum, table) => sum + table.rows, 0), ms: Date.now() - started };
  }

  stop(): Promise<void> {
    return this.cluster.stop();
  }
}
