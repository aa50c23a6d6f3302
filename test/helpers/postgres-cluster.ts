/**
 * A throwaway PostgreSQL cluster (Debian's `postgresql`): initdb in a temporary folder owned by
 * the `postgres` user (PostgreSQL refuses to run as root, and the tests run as root), listening
 * only on a Unix socket in that folder, fsync off. `npm test` starts one per run and hands its URL
 * to the suites in NESTBOX_TEST_POSTGRES_URL (scripts/test-suites.mjs); a suite run on its own
 * starts its own (test/helpers/postgres-database.ts).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = '/usr/lib/postgresql/15/bin';
/** The variable that carries the cluster's URL (its `postgres` database) to the suites. */
export const CLUSTER_URL_VARIABLE = 'NESTBOX_TEST_POSTGRES_URL';

export interface PostgresCluster {
  /** The cluster's `postgres` database as the superuser `postgres`, over the socket. */
  url: string;
  /** The URL of another database of the cluster. */
  urlOf(database: string): string;
  stop(): Promise<void>;
}

/** The URL of `database` in the cluster whose `postgres` database is at `clusterUrl`. */
export function databaseUrl(clusterUrl: string, database: string): string {
  const url = new URL(clusterUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

interface Owner {
  uid: number;
  gid: number;
}

/** Root runs the server as `postgres`; anyone else runs it as themselves. */
function owner(): Owner | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function run(command: string, args: string[], as: Owner | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(BIN, command), args, {
      ...(as ?? {}),
      stdio: ['ignore', 'pipe', 'pipe'],
      // The server inherits the environment: nothing of the test's NESTBOX_* settings.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`)),
    );
  });
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const as = owner();
  const folder = mkdtempSync(join(tmpdir(), 'nestbox-pg-'));
  if (as) chownSync(folder, as.uid, as.gid);
  const data = join(folder, 'data');
  const remove = () => rmSync(folder, { recursive: true, force: true });
  try {
    // C collation and ctype everywhere: text orders and lower() folds as SQLite's do (bytes, ASCII).
    await run(
      'initdb',
      ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync', '--no-instructions'],
      as,
    );
    const options = [
      `-k ${folder}`,
      "-c listen_addresses=''",
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c shared_buffers=32MB',
      '-c max_connections=200',
    ].join(' ');
    await run('pg_ctl', ['-D', data, '-l', join(folder, 'server.log'), '-o', options, '-w', '-t', '60', 'start'], as);
  } catch (error) {
    remove();
    throw error;
  }
  const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(folder)}`;
  let stopped: Promise<void> | null = null;
  return {
    url,
    urlOf: (database) => databaseUrl(url, database),
    stop() {
      // Immediate: the cluster's contents are thrown away with its folder.
      stopped ??= run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], as)
        .catch(() => undefined)
        .finally(remove);
      return stopped;
    },
  };
}
