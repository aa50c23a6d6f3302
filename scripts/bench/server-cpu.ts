/**
 * The PostgreSQL server's CPU time beside the daemon's: a query's work on PostgreSQL is done in the
 * server's processes, which the daemon's own CPU time does not count (on SQLite it does).
 */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

/** The fields of /proc/PID/stat after the command name (field 3 is the first). */
export function statFields(pid: number | string): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null; // gone meanwhile
  }
}

/** The server's main process (postmaster) of the database at `url`: the parent of a session's backend. */
export async function serverPid(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const fields = statFields(rows[0].pid);
    if (!fields) throw new Error('the backend is not a process of this machine');
    return Number(fields[1]);
  } finally {
    await client.end();
  }
}

/**
 * CPU time (user and system, ms) of the server: its main process, its living children (backends,
 * background workers) and the children it has already reaped.
 */
export function serverCpuMs(pid: number): number {
  return Object.values(serverCpuByDatabase(pid)).reduce((sum, ms) => sum + ms, 0);
}

/**
 * The same CPU time by database: each living backend's under the database it serves (its process
 * title, `postgres: user database …`), the rest (main process, background workers, ended
 * sessions) under `BACKGROUND`.
 */
export function serverCpuByDatabase(pid: number): Record<string, number> {
  const ticks = (fields: string[], first: number, count: number) =>
    fields.slice(first, first + count).reduce((sum, value) => sum + Number(value), 0);
  const main = statFields(pid);
  if (!main) throw new Error(`no server process ${pid}`);
  const byDatabase: Record<string, number> = { [BACKGROUND]: ticks(main, 11, 4) * 10 };
  for (const { pid: child, fields } of childrenOf(pid)) {
    const database = databaseOf(child) ?? BACKGROUND;
    byDatabase[database] = (byDatabase[database] ?? 0) + ticks(fields, 11, 2) * 10;
  }
  return byDatabase;
}

/** The living children of process `parent`, each with its stat fields. */
export function childrenOf(parent: number): Array<{ pid: number; fields: string[] }> {
  const children: Array<{ pid: number; fields: string[] }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields && Number(fields[1]) === parent) children.push({ pid: Number(entry), fields });
  }
  return children;
}

export const BACKGROUND = '(background)';

/** The database a backend serves, from its process title; null for a background worker or one gone. */
function databaseOf(pid: number): string | null {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim().split(/\s+/);
    // A backend's title: `postgres: <user> <database> <client> <state>`; a worker's has no client.
    return words[0] === 'postgres:' && words.length >= 5 ? words[2] : null;
  } catch {
    return null;
  }
}
