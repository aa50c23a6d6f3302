import type { Db } from './db.js';
import { dialectOf } from './dialect.js';

/** Key-value settings that outlive a restart: generated once, then read. */
export async function getSetting(db: Db, key: string): Promise<string | null> {
  const row = await db('settings').where({ key }).first<{ value: string } | undefined>('value');
  return row ? String(row.value) : null;
}

export async function setSetting(db: Db, key: string, value: string): Promise<void> {
  const now = db.raw(dialectOf(db).nowIso);
  await db('settings').insert({ key, value, updated_at: now }).onConflict('key').merge({ value, updated_at: now });
}

/** Returns the stored value, or stores and returns the one `make` produces the first time. */
export async function getOrCreateSetting(db: Db, key: string, make: () => string): Promise<string> {
  const existing = await getSetting(db, key);
  if (existing !== null) return existing;
  await db('settings').insert({ key, value: make() }).onConflict('key').ignore();
  return (await getSetting(db, key))!;
}
