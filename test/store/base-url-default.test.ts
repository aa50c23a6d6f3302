/**
 * The base URL's default on a box (network layer on): http://<hostname>.local, with the port
 * unless it is 80; an instance that stored the default follows today's (from the localhost every
 * instance stored before, or after a new host name), links in the database with it, only while it
 * has never federated; a URL the owner named is never moved.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, type Config } from '../../daemon/config.js';
import type { Db } from '../../daemon/store/db.js';
import { changeBaseUrl, followDefaultBaseUrl, settleBaseUrl, storedBaseUrl } from '../../daemon/store/base-url.js';
import type { Engine } from '../../daemon/store/dialect.js';
import { setSetting } from '../../daemon/store/settings.js';
import { ENGINES, openMigrated } from '../helpers/engines.js';

/** Runs `use` on a fresh migrated database of `engine`, then closes and removes it. */
async function withMigrated(engine: Engine, use: (db: Db) => Promise<void>): Promise<void> {
  const database = await openMigrated(engine);
  try {
    await use(database.db);
  } finally {
    await database.close();
  }
}

const box = (env: Record<string, string> = {}): Config =>
  loadConfig({ env: { NESTBOX_NETWORK: 'on', NESTBOX_HTTP_PORT: '80', ...env }, cwd: '/tmp' });

async function addAccount(db: Db, id: number, username: string, base: string, domain: string | null = null) {
  const now = new Date().toISOString();
  await db('accounts').insert({
    id,
    username,
    domain,
    uri: `${base}/users/${username}`,
    url: `${base}/@${username}`,
    inbox_url: `${base}/users/${username}/inbox`,
    created_at: now,
    updated_at: now,
  });
}

const accountUri = async (db: Db, id: number) => (await db('accounts').where({ id }).first<{ uri: string }>('uri')).uri;

test('a box defaults to http://<hostname>.local, with the port only when it is not 80; a developer machine to localhost', () => {
  assert.is(box().baseUrl, 'http://nestbox.local');
  assert.is(box({ NESTBOX_HOSTNAME: 'Den' }).baseUrl, 'http://den.local');
  assert.is(box({ NESTBOX_HTTP_PORT: '8080' }).baseUrl, 'http://nestbox.local:8080');
  assert.is(box().streamingUrl, 'http://nestbox.local:4000');
  assert.is(loadConfig({ env: {}, cwd: '/tmp' }).baseUrl, 'http://localhost:8080');
  assert.is(box({ NESTBOX_BASE_URL: 'https://social.example' }).baseUrl, 'https://social.example');
});

for (const engine of ENGINES)
  test(`a box first started with the localhost default moves to <hostname>.local, its accounts with it (${engine})`, async () => {
    await withMigrated(engine, async (db) => {
      // What the daemon stored before the box had a default of its own (no origin recorded).
      await setSetting(db, 'base_url', 'http://localhost:8080');
      await addAccount(db, 1, 'owner', 'http://localhost:8080');
      const followed = await followDefaultBaseUrl(db, box());
      assert.equal(followed, { moved: true, previous: 'http://localhost:8080', baseUrl: 'http://nestbox.local' });
      assert.is(await storedBaseUrl(db), 'http://nestbox.local');
      assert.is(await accountUri(db, 1), 'http://nestbox.local/users/owner');
      assert.is((await settleBaseUrl(db, box())).baseUrl, 'http://nestbox.local');
      // Once moved, nothing more to do; a new host name is followed again (the origin is the default).
      assert.is(await followDefaultBaseUrl(db, box()), null);
      assert.equal(await followDefaultBaseUrl(db, box({ NESTBOX_HOSTNAME: 'attic' })), {
        moved: true,
        previous: 'http://nestbox.local',
        baseUrl: 'http://attic.local',
      });
      assert.is(await accountUri(db, 1), 'http://attic.local/users/owner');
    });
  });

for (const engine of ENGINES)
  test(`a box that has federated keeps the default it stored: other servers know its ids (${engine})`, async () => {
    await withMigrated(engine, async (db) => {
      await setSetting(db, 'base_url', 'http://localhost:8080');
      await addAccount(db, 1, 'owner', 'http://localhost:8080');
      await addAccount(db, 2, 'alice', 'https://peer.example', 'peer.example');
      const followed = await followDefaultBaseUrl(db, box());
      assert.equal(followed, { moved: false, previous: 'http://localhost:8080', baseUrl: 'http://nestbox.local' });
      assert.is(await storedBaseUrl(db), 'http://localhost:8080');
      assert.is(await accountUri(db, 1), 'http://localhost:8080/users/owner');
      assert.is((await settleBaseUrl(db, box())).baseUrl, 'http://localhost:8080');
    });
    await withMigrated(engine, async (db) => {
      await setSetting(db, 'base_url', 'http://localhost:8080');
      await db('federation_domains').insert({ domain: 'peer.example', last_failure_at: new Date().toISOString() });
      assert.is((await followDefaultBaseUrl(db, box()))?.moved, false);
    });
  });

for (const engine of ENGINES)
  test(`a base URL the owner named, at the first start or later, never follows the default (${engine})`, async () => {
    await withMigrated(engine, async (db) => {
      const named = box({ NESTBOX_BASE_URL: 'http://192.168.1.20' });
      await settleBaseUrl(db, named);
      assert.is(await followDefaultBaseUrl(db, box()), null);
      assert.is((await settleBaseUrl(db, box())).baseUrl, 'http://192.168.1.20');
    });
    await withMigrated(engine, async (db) => {
      await settleBaseUrl(db, box());
      assert.is(await storedBaseUrl(db), 'http://nestbox.local');
      await changeBaseUrl(db, 'https://social.example');
      assert.is(await followDefaultBaseUrl(db, box({ NESTBOX_HOSTNAME: 'attic' })), null);
      assert.is(await storedBaseUrl(db), 'https://social.example');
    });
    await withMigrated(engine, async (db) => {
      // An earlier instance that stored another URL than the old default had it named.
      await setSetting(db, 'base_url', 'http://127.0.0.1:9000');
      assert.is(await followDefaultBaseUrl(db, box()), null);
    });
  });

for (const engine of ENGINES)
  test(`the admin tool and a daemon given the URL explicitly do not move it (${engine})`, async () => {
    await withMigrated(engine, async (db) => {
      await setSetting(db, 'base_url', 'http://localhost:8080');
      // settleBaseUrl alone (what the commands run) uses what is stored.
      assert.is((await settleBaseUrl(db, box())).baseUrl, 'http://localhost:8080');
      assert.is(await followDefaultBaseUrl(db, box({ NESTBOX_BASE_URL: 'http://localhost:8080' })), null);
      assert.is(await storedBaseUrl(db), 'http://localhost:8080');
    });
  });

test.run();
