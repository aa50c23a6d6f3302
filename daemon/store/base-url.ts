/**
 * The instance's base URL, stored in the settings at the first start: accounts' ActivityPub ids and
 * links are made from it, so every later start and every command uses that one. A configuration
 * naming another refuses (exit 2) instead of making accounts under it; `changeBaseUrl` is the one
 * deliberate way to move the instance.
 */
import { ConfigError, parseBaseUrl, withBaseUrl, type Config } from '../config.js';
import type { Db } from './db.js';
import { getSetting, setSetting } from './settings.js';

const SETTING = 'base_url';

export const CHANGE_BASE_URL_COMMAND = 'npm run admin -- set-base-url URL';

/** A configuration that names another base URL than the one the instance was set up with. */
export class BaseUrlMismatch extends ConfigError {
  constructor(
    readonly stored: string,
    readonly given: string,
    name: string,
    source: string,
  ) {
    super(
      name,
      given,
      `this instance's base URL is ${stored} (stored at its first start; its accounts' ids and links are made from it). ` +
        `Give ${stored} or leave ${name} unset; to move the instance to ${given} deliberately, run ${CHANGE_BASE_URL_COMMAND.replace('URL', given)}`,
      source,
    );
    this.name = 'BaseUrlMismatch';
  }
}

/**
 * The configuration the instance runs with: the stored base URL (stored now from the
 * configuration when there is none yet). Throws BaseUrlMismatch when the configuration gives
 * another one explicitly.
 */
export async function settleBaseUrl(db: Db, config: Config): Promise<Config> {
  const stored = await getSetting(db, SETTING);
  if (stored === null) {
    await db('settings').insert({ key: SETTING, value: config.baseUrl }).onConflict('key').ignore();
    const winner = (await getSetting(db, SETTING))!;
    return winner === config.baseUrl ? config : settleBaseUrl(db, config);
  }
  if (stored === config.baseUrl) return config;
  const given = config.sources.baseUrl;
  if (given) throw new BaseUrlMismatch(stored, config.baseUrl, given.name, given.source);
  return withBaseUrl(config, stored);
}

/** The stored base URL, or null before the first start. */
export function storedBaseUrl(db: Db): Promise<string | null> {
  return getSetting(db, SETTING);
}

export class InvalidBaseUrl extends Error {}

/**
 * Moves the instance to another base URL (the dashboard and `npm run admin -- set-base-url`):
 * stores it and rewrites the links to this instance kept in the database (local accounts' ids,
 * inboxes and profile URLs, local posts' ids…), in one transaction. The running daemon keeps the
 * old one until it restarts; peers that already follow an account know it by its old id.
 */
export async function changeBaseUrl(db: Db, raw: string): Promise<{ previous: string | null; baseUrl: string }> {
  const baseUrl = parseBaseUrl(raw);
  if (!baseUrl) throw new InvalidBaseUrl(`not a base URL: ${JSON.stringify(raw)} (an http:// or https:// URL)`);
  const previous = await getSetting(db, SETTING);
  await db.transaction(async (trx) => {
    if (previous && previous !== baseUrl) await rewriteLinks(trx, previous, baseUrl);
    await setSetting(trx, SETTING, baseUrl);
  });
  return { previous, baseUrl };
}

/** Every stored link column (…uri, …url) whose value is under `from` moves under `to`. */
async function rewriteLinks(trx: Db, from: string, to: string): Promise<void> {
  const tables = await trx.raw<Array<{ name: string }>>(
    `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'knex_%'`,
  );
  for (const { name: table } of tables) {
    const columns = await trx.raw<Array<{ name: string; type: string }>>(`PRAGMA table_info(${quote(table)})`);
    for (const { name: column } of columns) {
      if (!/(^|_)(uri|url)$/i.test(column)) continue;
      await trx.raw(
        `UPDATE ${quote(table)} SET ${quote(column)} = ? || substr(${quote(column)}, ?)
         WHERE ${quote(column)} = ? OR substr(${quote(column)}, 1, ?) = ?`,
        [to, from.length + 1, from, from.length + 1, `${from}/`],
      );
    }
  }
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
