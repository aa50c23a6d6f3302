/**
 * A PostgreSQL database of a suite's own, made from a migrated template (`CREATE DATABASE x
 * TEMPLATE nestbox_template`: a copy of the files, no migration per suite). Under `npm test` the
 * run's cluster is in TEST_POSTGRES_DIR: the first suite to ask starts it there (under a
 * lock folder, so suites running side by side start it once) and the runner stops it. A suite run
 * on its own starts a cluster of its own and stops it with its last database.
 */
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import {
  CLUSTER_FOLDER_VARIABLE,
  clusterUrl,
  databaseUrl,
  startClusterIn,
  startPostgresCluster,
  type PostgresCluster,
} from './postgres-cluster.js';

const TEMPLATE = 'nestbox_template';
/** Any number the suites agree on: the lock under which the template is made once. */
const TEMPLATE_LOCK = 3205;
/** A lock older than this was left by a suite that died while starting the cluster. */
const STALE_LOCK_MS = 120_000;

export interface TestPostgres {
  url: string;
  drop(): Promise<void>;
}

let own: Promise<PostgresCluster> | null = null;
let databases = 0;
let made = 0;

/** The run's cluster (started by the first suite that asks), or one of this process's own. */
async function cluster(): Promise<string> {
  const folder = process.env[CLUSTER_FOLDER_VARIABLE];
  if (!folder) {
    own ??= startPostgresCluster();
    return (await own).url;
  }
  const ready = join(folder, 'ready');
  const lock = join(folder, 'starting');
  for (;;) {
    if (existsSync(ready)) return clusterUrl(folder);
    try {
      mkdirSync(lock);
    } catch {
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - since > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    try {
      if (!existsSync(ready)) {
        await startClusterIn(folder);
        writeFileSync(ready, '');
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

async function withAdmin<T>(url: string, use: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.end();
  }
}

/** Makes the migrated template once per cluster: built under another name, renamed when complete. */
async function ensureTemplate(admin: pg.Client, url: string): Promise<void> {
  await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [TEMPLATE]);
    if (rowCount) return;
    const building = `${TEMPLATE}_building`;
    await admin.query(`DROP DATABASE IF EXISTS ${building}`);
    await admin.query(`CREATE DATABASE ${building}`);
    // knex and the migrations, for the one suite that makes the template.
    const [{ migrate }, { openPostgres }] = await Promise.all([
      import('../../daemon/store/migrate.js'),
      import('../../daemon/store/postgres.js'),
    ]);
    const db = openPostgres(databaseUrl(url, building), { poolSize: 1 });
    try {
      await migrate(db);
    } finally {
      await db.destroy();
    }
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${TEMPLATE}`);
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
  }
}

/**
 * A fresh, migrated database (or with `empty`, one holding nothing, as a restore wants it); `drop()`
 * removes it (and this process's own cluster after its last one).
 */
export async function createPostgresDatabase(options: { empty?: boolean } = {}): Promise<TestPostgres> {
  const url = await cluster();
  const name = `nestbox_${process.pid}_${++made}`;
  await withAdmin(url, async (admin) => {
    await ensureTemplate(admin, url);
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${options.empty ? 'template0' : TEMPLATE}`);
  });
  databases += 1;
  let dropped: Promise<void> | null = null;
  return {
    url: databaseUrl(url, name),
    drop: () =>
      (dropped ??= (async () => {
        await withAdmin(url, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
        databases -= 1;
        if (databases === 0 && own) {
          const stopping = own;
          own = null;
          await (await stopping).stop();
        }
      })()),
  };
}
