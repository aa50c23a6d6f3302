/**
 * The owner's tools behind `npm run admin`: create accounts (the owner among them), issue an
 * access token for one's own account with chosen scopes (like Mastodon's "new application"
 * page), reset a password. Used by the CLI and by tests, against the box's database.
 */
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { Db } from '../store/db.js';
import { openStore } from '../store/open.js';
import { migrate } from '../store/migrate.js';
import { changeBaseUrl, settleBaseUrl } from '../store/base-url.js';
import { DomainError } from '../lib/errors.js';
import { Social } from './index.js';
import { parseScopes } from './oauth/scopes.js';
import { OOB_REDIRECT } from './oauth/service.js';

const ADMIN_BUSY_TIMEOUT_MS = 30_000;

export class AdminTool {
  private constructor(
    private readonly db: Db,
    readonly social: Social,
  ) {}

  /** Refuses (BaseUrlMismatch) a configuration naming another base URL than the instance's. */
  static async open(config: Config, log: Logger = silentLogger): Promise<AdminTool> {
    const filename = join(config.dataDir, 'nestbox.sqlite3');
    const db = await openMigrated(config);
    try {
      const settled = await settleBaseUrl(db, config);
      return new AdminTool(db, await Social.open({ db, filename, config: settled, log }));
    } catch (error) {
      await db.destroy();
      throw error;
    }
  }

  /**
   * Moves the instance to another base URL (see changeBaseUrl); the daemon uses it from its next
   * start. Works whatever base URL the configuration names: that is the point of it.
   */
  static async changeBaseUrl(config: Config, baseUrl: string): Promise<{ previous: string | null; baseUrl: string }> {
    const db = await openMigrated(config);
    try {
      return await changeBaseUrl(db, baseUrl);
    } finally {
      await db.destroy();
    }
  }

  async createAccount(input: {
    username: string;
    email: string;
    password: string;
    owner?: boolean;
    locked?: boolean;
  }): Promise<{ id: string; username: string }> {
    if (input.owner && (await this.social.services.accounts.ownerAccountId())) {
      throw new AdminError('an owner account already exists');
    }
    const row = await this.social.services.accounts.createLocal({ ...input, approved: true });
    return { id: row.id, username: row.username };
  }

  /** A token for the account, under an app of that name owned by the account. */
  async token(input: {
    username: string;
    scopes: string;
    app?: string;
  }): Promise<{ accessToken: string; accountId: string; scopes: string }> {
    const account = await this.social.services.accounts.byUsername(input.username, null);
    if (!account) throw new AdminError(`no local account named ${input.username}`);
    const { scopes, unknown } = parseScopes(input.scopes);
    if (unknown.length) throw new AdminError(`unknown scopes: ${unknown.join(' ')}`);
    if (scopes.length === 0) throw new AdminError('no scopes given');
    const oauth = this.social.services.oauth;
    const app = await oauth.createApp(
      { client_name: input.app ?? 'nestbox-admin', redirect_uris: OOB_REDIRECT, scopes: scopes.join(' ') },
      account.id,
    );
    const token = await oauth.issueToken({ appId: app.id, accountId: account.id, scopes });
    return { accessToken: token.access_token, accountId: account.id, scopes: token.scope };
  }

  /** Sets the given password, or a generated one (returned); revokes the account's tokens. */
  async resetPassword(username: string, password?: string): Promise<string> {
    const account = await this.social.services.accounts.byUsername(username, null);
    if (!account) throw new AdminError(`no local account named ${username}`);
    const next = password ?? randomBytes(12).toString('base64url');
    await this.social.services.accounts.setPassword(account.id, next);
    await this.social.services.oauth.revokeAccountTokens(account.id);
    return next;
  }

  /** Publishes an announcement (there is no admin API for them); returns its id. */
  createAnnouncement(input: { text: string; startsAt?: string; endsAt?: string; allDay?: boolean }): Promise<string> {
    return this.social.services.announcements.create(input);
  }

  async close(): Promise<void> {
    await this.social.close();
    await this.db.destroy();
  }
}

async function openMigrated(config: Config): Promise<Db> {
  // NESTBOX_DATABASE_URL as the daemon follows it: PostgreSQL, or the SQLite file. A command run beside a
  // busy daemon waits longer for its writer than a request would, rather than fail with "database is locked".
  const db = await openStore(config, { busyTimeoutMs: ADMIN_BUSY_TIMEOUT_MS });
  try {
    await migrate(db);
    return db;
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

export class AdminError extends Error {}

/** Messages for the CLI: validation errors name the field. */
export function describeAdminError(error: unknown): string {
  if (error instanceof DomainError) {
    if (error.details)
      return Object.entries(error.details)
        .map(([field, list]) => `${field} ${list.map((e) => e.description).join(', ')}`)
        .join('; ');
    return error.message;
  }
  return (error as Error).message;
}
