/**
 * A social context on a fresh, migrated database (writer and reader, as the daemon opens them) for
 * repository tests, with plain rows to put in it: accounts, statuses, tokens. SQLite by default;
 * `engine` 'postgres' gives a database of the run's PostgreSQL cluster (test/helpers/engines.ts).
 */
import { join } from 'node:path';
import { silentLogger } from '../../daemon/log/logger.js';
import type { Engine } from '../../daemon/store/dialect.js';
import { SnowflakeGenerator } from '../../daemon/store/ids.js';
import type { SocialContext } from '../../daemon/social/context.js';
import { SocialEventBus } from '../../daemon/social/events.js';
import { openReader } from '../../daemon/social/store/reader.js';
import { openMigrated } from '../helpers/engines.js';
import { tempDir } from '../helpers/paths.js';

export interface RepoContext {
  ctx: SocialContext;
  /** A local account (with its user row), or a remote one when `domain` is given; its id. */
  account(username: string, options?: { domain?: string; approved?: boolean }): Promise<string>;
  status(accountId: string, options?: { visibility?: string; deletedAt?: string }): Promise<string>;
  /** An access token of `accountId` (under an app of its own); its id. */
  token(accountId: string): Promise<string>;
  close(): Promise<void>;
}

const BASE_URL = 'https://box.example';
const CREATED_AT = '2026-01-01T00:00:00.000Z';

export async function openRepoContext(now: () => number = Date.now, engine: Engine = 'sqlite'): Promise<RepoContext> {
  const dir = tempDir();
  const database = await openMigrated(engine);
  const db = database.db;
  const reader = await openReader(db, database.location);
  const ctx: SocialContext = {
    db,
    reader,
    ids: new SnowflakeGenerator(),
    events: new SocialEventBus(),
    config: {
      baseUrl: BASE_URL,
      registrations: 'open',
      streamingUrl: null,
      dataDir: dir.path,
      publicPreview: true,
      smtpUrl: null,
      smtpFrom: 'nestbox@box.example',
      federationAllowPrivate: false,
      loginLimitAddress: 100,
      loginLimitAccount: 100,
    } as unknown as SocialContext['config'],
    log: silentLogger,
    localDomain: 'box.example',
    mediaDir: join(dir.path, 'media'),
    now,
  };
  let made = 0;
  return {
    ctx,
    async account(username, options = {}) {
      const id = ctx.ids.next();
      const uri = options.domain ? `https://${options.domain}/users/${username}` : `${BASE_URL}/users/${username}`;
      await db('accounts').insert({
        id,
        username,
        domain: options.domain ?? null,
        uri,
        created_at: CREATED_AT,
        updated_at: CREATED_AT,
      });
      if (!options.domain)
        await db('users').insert({
          account_id: id,
          email: `${username}@example.test`,
          password_hash: 'x',
          approved: options.approved === false ? 0 : 1,
          created_at: CREATED_AT,
        });
      return id;
    },
    async status(accountId, options = {}) {
      const id = ctx.ids.next();
      await db('statuses').insert({
        id,
        account_id: accountId,
        uri: `${BASE_URL}/statuses/${id}`,
        visibility: options.visibility ?? 'public',
        created_at: CREATED_AT,
        updated_at: CREATED_AT,
        deleted_at: options.deletedAt ?? null,
      });
      return id;
    },
    async token(accountId) {
      const [app] = await db('oauth_apps')
        .insert({
          name: 'test',
          redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
          scopes: 'read write push',
          client_id: `client-${++made}`,
          client_secret: 'secret',
          created_at: CREATED_AT,
        })
        .returning<Array<{ id: number }>>('id');
      const [token] = await db('oauth_tokens')
        .insert({
          app_id: app.id,
          account_id: accountId,
          token_hash: `hash-${++made}`,
          scopes: 'read write push',
          created_at: CREATED_AT,
        })
        .returning<Array<{ id: number }>>('id');
      return String(token.id);
    },
    async close() {
      await reader.close();
      await database.close();
      dir.remove();
    },
  };
}
