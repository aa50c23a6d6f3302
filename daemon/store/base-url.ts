/**
 * The instance's base URL, stored in the settings at the first start: accounts' ActivityPub ids and
 * links are made from it, so every later start and every command uses that one. A configuration
 * naming another refuses (exit 2) instead of making accounts under it; `changeBaseUrl` is the one
 * deliberate way to move the instance. Until the owner names one, the stored URL is the default's
 * and follows it (`followDefaultBaseUrl`) for as long as the instance has never federated.
 */
import { ConfigError, parseBaseUrl, withBaseUrl, type Config } from '../config.js';
import type { Logger } from '../log/logger.js';
import type { Db } from './db.js';
import { dialectOf, rawRows } from './dialect.js';
import { getSetting, setSetting } from './settings.js';

const SETTING = 'base_url';
/** `default` when the stored base URL came from the configuration's default, `chosen` when named. */
const ORIGIN = 'base_url_origin';
/** What every instance stored at its first start before a box defaulted to <hostname>.local. */
const EARLIER_DEFAULT = 'http://localhost:8080';

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
    if (winner !== config.baseUrl) return settleBaseUrl(db, config);
    const origin = config.sources.baseUrl ? 'chosen' : 'default';
    await db('settings').insert({ key: ORIGIN, value: origin }).onConflict('key').ignore();
    return config;
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

export type DefaultFollowed =
  | { moved: true; previous: string; baseUrl: string }
  /** The stored default differs from today's, but the instance has federated under it. */
  | { moved: false; previous: string; baseUrl: string };

/**
 * The daemon's start (not the commands', whose configuration may lack the unit's settings): a
 * base URL stored from the default follows today's default (a box moves from the localhost it
 * stored before to <hostname>.local, and to a new host name), links in the database with it. Only
 * while the instance has never federated: no other server knows its ids. Null when nothing is to do.
 */
export async function followDefaultBaseUrl(db: Db, config: Config): Promise<DefaultFollowed | null> {
  if (config.sources.baseUrl) return null;
  const previous = await getSetting(db, SETTING);
  if (previous === null || previous === config.baseUrl) return null;
  const origin = await getSetting(db, ORIGIN);
  const fromDefault = origin === 'default' || (origin === null && previous === EARLIER_DEFAULT);
  if (!fromDefault) return null;
  if (await hasFederated(db)) return { moved: false, previous, baseUrl: config.baseUrl };
  await moveBaseUrl(db, previous, config.baseUrl, 'default');
  return { moved: true, previous, baseUrl: config.baseUrl };
}

/** The daemon's start: the default followed (see followDefaultBaseUrl), then settled; said in the log. */
export async function settleDaemonBaseUrl(db: Db, config: Config, log: Logger): Promise<Config> {
  const followed = await followDefaultBaseUrl(db, config);
  if (followed?.moved)
    log.info('base URL follows the default', { previous: followed.previous, base_url: followed.baseUrl });
  else if (followed)
    log.warn('base URL kept: this instance has federated under it', {
      base_url: followed.previous,
      default: followed.baseUrl,
      to_move: CHANGE_BASE_URL_COMMAND.replace('URL', followed.baseUrl),
    });
  return settleBaseUrl(db, config);
}

/** Another server has been in touch, or been sent something: it may hold ids made from the base URL. */
async function hasFederated(db: Db): Promise<boolean> {
  const [row] = await rawRows<{ touched: number }>(
    db,
    `SELECT EXISTS (SELECT 1 FROM accounts WHERE domain IS NOT NULL)
         OR EXISTS (SELECT 1 FROM federation_deliveries)
         OR EXISTS (SELECT 1 FROM federation_domains) AS touched`,
  );
  return Boolean(row.touched);
}

/**
 * Moves the instance to another base URL (the dashboard and `npm run admin -- set-base-url`):
 * stores it and rewrites the links to this instance kept in the database (local accounts' ids,
 * inboxes and profile URLs, local posts' ids…), in one transaction. The running daemon keeps the
 * old one in memory until it restarts, so the caller restarts it at once (what it writes before
 * then is made under the old URL); peers that already follow an account know it by its old id.
 */
export async function changeBaseUrl(db: Db, raw: string): Promise<{ previous: string | null; baseUrl: string }> {
  const baseUrl = parseBaseUrl(raw);
  if (!baseUrl) throw new InvalidBaseUrl(`not a base URL: ${JSON.stringify(raw)} (an http:// or https:// URL)`);
  const previous = await getSetting(db, SETTING);
  await moveBaseUrl(db, previous, baseUrl, 'chosen');
  return { previous, baseUrl };
}

async function moveBaseUrl(db: Db, previous: string | null, baseUrl: string, origin: 'default' | 'chosen') {
  await db.transaction(async (trx) => {
    if (previous && previous !== baseUrl) await rewriteLinks(trx, previous, baseUrl);
    await setSetting(trx, SETTING, baseUrl);
    await setSetting(trx, ORIGIN, origin);
  });
}

/** Every stored link column (…uri, …url) whose value is under `from` moves under `to`. */
async function rewriteLinks(trx: Db, from: string, to: string): Promise<void> {
  const columns = await rawRows<{ table_name: string; column_name: string }>(trx, dialectOf(trx).textColumns);
  for (const { table_name: table, column_name: column } of columns) {
    if (!/(^|_)(uri|url)$/i.test(column)) continue;
    await trx.raw(
      `UPDATE ${quote(table)} SET ${quote(column)} = ? || substr(${quote(column)}, ?)
       WHERE ${quote(column)} = ? OR substr(${quote(column)}, 1, ?) = ?`,
      [to, from.length + 1, from, from.length + 1, `${from}/`],
    );
  }
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
