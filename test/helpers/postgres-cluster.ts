/**
 * A throwaway PostgreSQL cluster (Debian's `postgresql`): initdb in a temporary folder owned by
 * the `postgres` user (PostgreSQL refuses to run as root, and the tests run as root), listening
 * only on a Unix socket in that folder, fsync off. `npm test` makes one folder per run and hands it
 * to the suites in TEST_POSTGRES_DIR (scripts/test-suites.mjs); a suite run on its own
 * starts a cluster of its own (test/helpers/postgres-database.ts).
 */
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = '/usr/lib/postgresql/15/bin';
/**
 * The variable that names the run's cluster folder to the suites. The first suite that needs the
 * cluster starts it there (a run whose suites never ask pays nothing); the runner stops it at the end.
 */
export const CLUSTER_FOLDER_VARIABLE = 'TEST_POSTGRES_DIR';

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

/** A folder for a cluster, owned by the user the server runs as; nothing started in it yet. */
export function clusterFolder(): string {
  const as = owner();
  const folder = mkdtempSync(join(tmpdir(), 'nestbox-pg-'));
  if (as) chownSync(folder, as.uid, as.gid);
  return folder;
}

/** The `postgres` database of the cluster in `folder`, over its socket. */
export function clusterUrl(folder: string): string {
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(folder)}`;
}

/**
 * Makes and starts a cluster in `folder` (from clusterFolder()); `settings` are more server
 * settings (`name=value`), such as a library to preload.
 */
export async function startClusterIn(folder: string, settings: readonly string[] = []): Promise<void> {
  const as = owner();
  const data = join(folder, 'data');
  // C collation and ctype everywhere: text orders and lower() folds as SQLite's do (bytes, ASCII).
  await run(
    'initdb',
    ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync', '--no-instructions'],
    as,
  );
  await startServerIn(folder, settings);
}

/** Starts the server of the cluster made in `folder` (again, after stopServerIn), with `settings` besides the tests' own. */
export async function startServerIn(folder: string, settings: readonly string[] = []): Promise<void> {
  const as = owner();
  const data = join(folder, 'data');
  const options = [
    `-k ${folder}`,
    "-c listen_addresses=''",
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c shared_buffers=32MB',
    '-c max_connections=200',
    ...settings.map((setting) => `-c ${setting}`),
  ].join(' ');
  await run('pg_ctl', ['-D', data, '-l', join(folder, 'server.log'), '-o', options, '-w', '-t', '60', 'start'], as);
}

/** Stops the server of the cluster in `folder` as an administrator would (`fast`: sessions ended, all written). */
export async function stopServerIn(folder: string): Promise<void> {
  await run('pg_ctl', ['-D', join(folder, 'data'), '-m', 'fast', '-w', 'stop'], owner());
}

/** Stops the cluster in `folder` if one was started there, and removes the folder. */
export async function removeCluster(folder: string): Promise<void> {
  const data = join(folder, 'data');
  // Immediate: the cluster's contents are thrown away with its folder.
  if (existsSync(join(data, 'postmaster.pid')))
    await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'], owner()).catch(() => undefined);
  rmSync(folder, { recursive: true, force: true });
}

/** A cluster of this process's own, started now (`settings` as for startClusterIn). */
export async function startPostgresCluster(settings: readonly string[] = []): Promise<PostgresCluster> {
  const folder = clusterFolder();
  try {
    await startClusterIn(folder, settings);
  } catch (error) {
    await removeCluster(folder);
    throw error;
  }
  const url = clusterUrl(folder);
  let stopped: Promise<void> | null = null;
  return {
    url,
    urlOf: (database) => databaseUrl(url, database),
    stop: () => (stopped ??= removeCluster(folder)),
  };
}
