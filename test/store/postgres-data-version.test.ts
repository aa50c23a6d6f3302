/**
 * The data version on PostgreSQL (the response cache's key) without a query per request: this
 * process's commits move it when their answer arrives, other processes' when PostgreSQL announces
 * them (LISTEN/NOTIFY from statement triggers on every table, installed after the migrations).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import pg from 'pg';
import { ResponseCache } from '../../daemon/social/render/response-cache.js';
import { openReader, type Reader } from '../../daemon/social/store/reader.js';
import { migrate } from '../../daemon/store/migrate.js';
import { openPostgres } from '../../daemon/store/postgres.js';
import { serverLost } from '../../daemon/store/server-lost.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { EngineDatabases } from '../helpers/engines.js';
import { tempDir } from '../helpers/paths.js';

const databases = new EngineDatabases();
test.after(() => databases.close());

/** Resolves once `moved` holds, looking again every 20 ms; fails after `ms` (an announcement lost). */
async function until(moved: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await moved())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function withReader(run: (reader: Reader, location: string) => Promise<void>): Promise<void> {
  const database = await databases.open('postgres');
  const reader = await openReader(database.db, database.location);
  try {
    await run(reader, database.location);
  } finally {
    await reader.close();
  }
}

async function withClient(url: string, run: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.end();
  }
}

test('a commit of another client is announced: the version moves once, a rollback and a read leave it', async () => {
  await withReader(async (reader, url) => {
    await withClient(url, async (other) => {
      const before = Number(await reader.dataVersion());
      await other.query('BEGIN');
      await other.query(`INSERT INTO settings (key, value) VALUES ('other-process', '1')`);
      await other.query('ROLLBACK');
      await other.query(`SELECT count(*) FROM settings`);
      // Announcements of one session arrive in commit order: once this one is in, any the
      // rollback or the read had sent would be too.
      await other.query(`INSERT INTO settings (key, value) VALUES ('other-process', '2')`);
      await until(async () => Number(await reader.dataVersion()) !== before, 'the commit moves the version');
      assert.is(await reader.dataVersion(), before + 1);
      // A transaction of many statements over several tables is one announcement.
      await other.query('BEGIN');
      await other.query(`UPDATE settings SET value = '3' WHERE key = 'other-process'`);
      await other.query(`INSERT INTO settings (key, value) VALUES ('second', '1')`);
      await other.query(`DELETE FROM follows`);
      await other.query('COMMIT');
      await until(async () => Number(await reader.dataVersion()) !== before + 1, 'the transaction is announced');
      await other.query(`INSERT INTO settings (key, value) VALUES ('fence', '1')`);
      await until(async () => Number(await reader.dataVersion()) === before + 3, 'the fence is announced');
    });
  });
});

test("this process's commit moves the version as soon as it returns, without waiting for its announcement", async () => {
  const database = await databases.open('postgres');
  await withReader(async (reader) => {
    let version = await reader.dataVersion();
    await database.db('settings').insert({ key: 'own-1', value: '1' });
    assert.is.not(await reader.dataVersion(), version, 'a single statement');
    version = await reader.dataVersion();
    await database.db.transaction(async (trx) => {
      await trx('settings').where({ key: 'own-1' }).update({ value: '2' });
      const during = await reader.dataVersion();
      await trx.commit();
      assert.is.not(await reader.dataVersion(), during, 'the commit moves it past what was read during the write');
    });
    assert.is.not(await reader.dataVersion(), version);
    version = await reader.dataVersion();
    await database.db('settings').where({ key: 'own-1' }).first();
    await database.db.raw('SELECT count(*) FROM settings');
    assert.is(await reader.dataVersion(), version, 'reads leave it');
    await database.db('settings').where({ key: 'no-such-key' }).delete();
    await database.db('settings').where({ key: 'no-such-key' }).update({ value: '3' });
    assert.is(await reader.dataVersion(), version, 'changes of no row leave it');
    await database.db.raw(
      `WITH beside AS (INSERT INTO settings (key, value) VALUES ('own-2', '1')) DELETE FROM settings WHERE key = 'no-such-key'`,
    );
    assert.is.not(
      await reader.dataVersion(),
      version,
      "a WITH's own change moves it, whatever its last statement's count",
    );
    version = await reader.dataVersion();
    await database.db('settings').where({ key: 'own-1' }).delete();
    assert.is.not(await reader.dataVersion(), version, 'a change of a row moves it');
  });
});

test('a connection that dies under a query moves the version; one the pool closes leaves it', async () => {
  const database = await databases.open('postgres');
  const db = openPostgres(database.location, { poolSize: 2 });
  const reader = await openReader(db, database.location);
  try {
    await db.raw('SELECT 1');
    let version = await reader.dataVersion();
    // The server ends the connection under the query: had it been a COMMIT, it may have committed.
    await db.raw('SELECT pg_terminate_backend(pg_backend_pid())').then(
      () => assert.unreachable('the connection was ended under its query'),
      (error: Error) => assert.ok(serverLost(error), error.message),
    );
    assert.is.not(await reader.dataVersion(), version, 'moved by the lost connection');
    // Its end arrives after the error's answer; the pool then takes it out.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await db.raw('SELECT 1');
    version = await reader.dataVersion();
    await db.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(await reader.dataVersion(), version, 'connections the pool closed idle');
  } finally {
    await reader.close();
    await db.destroy();
  }
});

test('a table added by a later migration is announced too', async () => {
  const database = await databases.open('postgres');
  await database.db.raw('CREATE TABLE later_table (n integer)');
  await migrate(database.db);
  await withReader(async (reader, url) => {
    await withClient(url, async (other) => {
      const before = await reader.dataVersion();
      await other.query('INSERT INTO later_table VALUES (1)');
      await until(async () => (await reader.dataVersion()) !== before, 'the write to the new table is announced');
    });
  });
});

const app = new Koa();

/** The cached answer of "how many accounts", and whether it was made again for this request. */
async function accountCount(cache: ResponseCache, reader: Reader): Promise<{ count: number; rendered: boolean }> {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/accounts/count';
  const ctx = app.createContext(req, new ServerResponse(req));
  let rendered = false;
  await cache.serve(ctx, 'accounts', [], async () => {
    rendered = true;
    ctx.status = 200;
    ctx.body = { count: Number((await reader.get<{ n: number }>('SELECT count(*) AS n FROM accounts'))!.n) };
  });
  return { count: (JSON.parse(String(ctx.body)) as { count: number }).count, rendered };
}

test("the admin tool's write makes the daemon's cached answer change", async () => {
  await withReader(async (reader, url) => {
    const cache = new ResponseCache(reader);
    const first = await accountCount(cache, reader);
    assert.ok(first.rendered);
    assert.equal(
      await accountCount(cache, reader),
      { count: first.count, rendered: false },
      'kept while nothing commits',
    );
    const data = tempDir();
    try {
      const made = await runAdmin(
        { dataDir: data.path, baseUrl: 'https://social.example' },
        [
          'create-account',
          '--username',
          'cached',
          '--email',
          'cached@example.com',
          '--password',
          'a long passphrase 1',
        ],
        { NESTBOX_DATABASE_URL: url },
      );
      assert.is(made.status, 0, made.stderr);
    } finally {
      data.remove();
    }
    let latest = first;
    await until(async () => (latest = await accountCount(cache, reader)).rendered, 'the cached answer goes stale');
    assert.is(latest.count, first.count + 1);
    assert.equal(await accountCount(cache, reader), { count: first.count + 1, rendered: false });
  });
});

test.run();
