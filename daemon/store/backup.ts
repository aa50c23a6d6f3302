/**
 * Consistent copies of the live database (SQLite: VACUUM INTO reads one snapshot while writers go
 * on; PostgreSQL: pg_dump, one snapshot too, `postgres-dump.ts`), written under a temporary name,
 * synced and renamed, so a half-written copy never looks like a backup, not even after a power cut.
 */
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from './db.js';
import { engineOf, type Engine } from './dialect.js';
import { publishFile } from '../storage/durable-files.js';

const PREFIX = 'nestbox-';
/** SQLite's copies are databases; PostgreSQL's are pg_dump's custom format (pg_restore reads them). */
const SUFFIXES: Record<Engine, string> = { sqlite: '.sqlite3', postgres: '.dump' };

/** How large the database is: what a copy may take. */
export async function databaseBytes(db: Db, sqliteFile: string): Promise<number> {
  if (engineOf(db) === 'sqlite') return (await stat(sqliteFile)).size;
  const { postgresBytes } = await import('./postgres-dump.js');
  return postgresBytes(db);
}

export interface BackupResult {
  path: string;
  bytes: number;
  removed: string[];
}

export async function backupDatabase(db: Db, dir: string, keep: number, now = new Date()): Promise<BackupResult> {
  await mkdir(dir, { recursive: true });
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.(\d{3})Z$/, '$1Z');
  const engine = engineOf(db);
  const path = join(dir, `${PREFIX}${stamp}${SUFFIXES[engine]}`);
  const partial = `${path}.partial`;
  await rm(partial, { force: true });
  try {
    if (engine === 'postgres') await (await import('./postgres-dump.js')).dumpPostgres(db, partial);
    else await db.raw('VACUUM INTO ?', [partial]);
    await publishFile(partial, path);
  } catch (error) {
    // A copy cut short by a full disk must not keep the space it took.
    await rm(partial, { force: true });
    throw error;
  }
  const { size } = await stat(path);
  const removed = await pruneBackups(dir, keep, SUFFIXES[engine]);
  return { path, bytes: size, removed };
}

export async function listBackups(dir: string, suffix = SUFFIXES.sqlite): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  // The timestamp in the name sorts in time order.
  return names.filter((name) => name.startsWith(PREFIX) && name.endsWith(suffix)).sort();
}

async function pruneBackups(dir: string, keep: number, suffix: string): Promise<string[]> {
  const names = await listBackups(dir, suffix);
  const excess = names.slice(0, Math.max(0, names.length - keep));
  await Promise.all(excess.map((name) => rm(join(dir, name), { force: true })));
  return excess;
}
