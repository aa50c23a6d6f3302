/**
 * A backup of a PostgreSQL database: `pg_dump` in its custom format (compressed, restored with
 * pg_restore, table by table if need be), when the client tools are installed. The password goes
 * to pg_dump in its environment, never on its command line (which every user can read).
 */
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import type { Db } from './db.js';
import { postgresUrlOf } from './postgres.js';

/** Writes the dump of `db` to `path`; rejects with pg_dump's own words when it fails or is missing. */
export async function dumpPostgres(db: Db, path: string): Promise<void> {
  const url = postgresUrlOf(db);
  if (!url) throw new Error('a PostgreSQL database opened without a URL cannot be dumped');
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  await new Promise<void>((resolve, reject) => {
    execFile(
      'pg_dump',
      ['--format=custom', '--no-password', `--file=${path}`, `--dbname=${parsed.toString()}`],
      { env: { ...process.env, ...(password && { PGPASSWORD: password }) }, maxBuffer: 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (!error) return resolve();
        const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
        reject(
          new Error(
            missing
              ? 'pg_dump is not installed (Debian: postgresql-client)'
              : `pg_dump failed: ${stderr.trim() || error.message}`,
          ),
        );
      },
    );
  });
  await stat(path);
}

/** The database's size on the server, in bytes (what a dump may take at most, uncompressed). */
export async function postgresBytes(db: Db): Promise<number> {
  const { rows } = await db.raw<{ rows: Array<{ bytes: number }> }>(
    'SELECT pg_database_size(current_database()) AS bytes',
  );
  return Number(rows[0].bytes);
}
