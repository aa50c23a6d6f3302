/**
 * Making files survive a power cut before anything points at them: a file's data and its
 * directory entry are only on the card once fsync'ed (a rename or a new file is a change of its
 * directory). Callers sync before the database row or the rename that publishes a file.
 */
import { open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Syncs each file, then each directory holding one (once), then `alsoDirs` (e.g. a new folder's parent). */
export async function syncFiles(paths: readonly string[], alsoDirs: readonly string[] = []): Promise<void> {
  for (const path of paths) await syncPath(path);
  for (const dir of new Set([...paths.map((path) => dirname(path)), ...alsoDirs])) await syncPath(dir);
}

/** Publishes a finished temporary file under its final name, durably: data, rename, directory. */
export async function publishFile(temporary: string, final: string): Promise<void> {
  await syncPath(temporary);
  await rename(temporary, final);
  await syncPath(dirname(final));
}
