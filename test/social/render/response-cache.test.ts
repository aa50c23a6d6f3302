/** Rendered responses kept while the database is unchanged: served as stored, stale after any commit, bounded. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import sqlite3 from 'sqlite3';
import { ResponseCache } from '../../../daemon/social/render/response-cache.js';
import { onlyKnownParams } from '../../../daemon/social/notifications/routes.js';
import { SqliteReader } from '../../../daemon/social/store/reader.js';
import { tempDir } from '../../helpers/paths.js';

const app = new Koa();
function context(url: string) {
  const req = new IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = url;
  return app.createContext(req, new ServerResponse(req));
}

async function withDatabase(
  run: (reader: SqliteReader, write: (sql: string) => Promise<void>, file: string) => Promise<void>,
  journal: 'WAL' | 'DELETE' = 'WAL',
): Promise<void> {
  const dir = tempDir();
  const file = join(dir.path, 'cache.sqlite3');
  const writer = new sqlite3.Database(file);
  const write = (sql: string) =>
    new Promise<void>((resolve, reject) => writer.exec(sql, (error) => (error ? reject(error) : resolve())));
  await write(`PRAGMA journal_mode = ${journal}; CREATE TABLE t (n INTEGER)`);
  const reader = await SqliteReader.open(file);
  try {
    await run(reader, write, file);
  } finally {
    await reader.close();
    await new Promise((resolve) => writer.close(resolve));
    dir.remove();
  }
}

/** Serves `key`, rendering `{ count }` when the cache does not answer; returns the body and whether it rendered. */
async function serve(cache: ResponseCache, key: string, count: number): Promise<{ body: string; rendered: boolean }> {
  const ctx = context(`/count?key=${key}`);
  let rendered = false;
  await cache.serve(ctx, key, ['Link'], async () => {
    rendered = true;
    ctx.status = 200;
    ctx.body = { count };
    ctx.set('Link', `<http://127.0.0.1/${key}>; rel="next"`);
  });
  return { body: Buffer.isBuffer(ctx.body) ? ctx.body.toString() : String(ctx.body), rendered };
}

test('a hit answers the stored bytes and headers; any commit makes it stale', async () => {
  await withDatabase(async (reader, write) => {
    const cache = new ResponseCache(reader);
    assert.equal(await serve(cache, 'a', 1), { body: '{"count":1}', rendered: true });
    const ctx = context('/count');
    await cache.serve(ctx, 'a', ['Link'], async () => assert.unreachable('served from the cache'));
    assert.is((ctx.body as Buffer).toString(), '{"count":1}');
    assert.is(ctx.response.get('Link'), '<http://127.0.0.1/a>; rel="next"');
    await write('INSERT INTO t VALUES (1)');
    assert.equal(await serve(cache, 'a', 2), { body: '{"count":2}', rendered: true });
  });
});

/** A commit by another process, finished before this returns (no turn of the event loop passes). */
function commitElsewhere(file: string): void {
  const script = `const sqlite3 = require('sqlite3'); const db = new sqlite3.Database(process.argv[1]);
    db.exec('INSERT INTO t VALUES (7)', (e) => { if (e) throw e; db.close(); });`;
  execFileSync(process.execPath, ['-e', script, file], { cwd: process.cwd() });
}

test('the data version is read from the WAL index: it moves with each commit, of any process, made before the call', async () => {
  await withDatabase(async (reader, write, file) => {
    const before = await reader.dataVersion();
    assert.type(before, 'string', 'read from the WAL index, not asked of SQLite');
    assert.is(await reader.dataVersion(), before, 'nothing committed since');
    // Another process's commit, ended before the call and with no turn of the event loop between.
    commitElsewhere(file);
    const afterElsewhere = await reader.dataVersion();
    assert.is.not(afterElsewhere, before);
    await write('INSERT INTO t VALUES (1)');
    const afterWriter = await reader.dataVersion();
    assert.is.not(afterWriter, afterElsewhere);
    // A checkpoint that restarts the WAL rewrites the index: a new version, never an old one back.
    await write('PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO t VALUES (2)');
    assert.not.ok([before, afterElsewhere, afterWriter].includes(await reader.dataVersion()));
  });
});

test('without a WAL index, callers of one turn share one data_version query, sent after the last of them asked', async () => {
  await withDatabase(async (reader, _write, file) => {
    const before = await reader.dataVersion();
    assert.type(before, 'number', 'asked of SQLite: a rollback journal has no WAL index');
    const first = reader.dataVersion();
    // A commit that ends after the first caller asked but before the second did: the second must see it.
    commitElsewhere(file);
    const second = reader.dataVersion();
    assert.is(first, second, 'one query for both');
    assert.is.not(await second, before, 'the shared answer sees the commit made before the last caller asked');
    assert.is(await reader.dataVersion(), await second, 'nothing committed since');
  }, 'DELETE');
});

/** A promise and the function that settles it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

test('requests that miss together render once and all answer its bytes and headers', async () => {
  await withDatabase(async (reader) => {
    const cache = new ResponseCache(reader);
    let renders = 0;
    const { opened, open } = gate();
    const contexts = Array.from({ length: 16 }, () => context('/count'));
    const served = contexts.map((ctx) =>
      cache.serve(ctx, 'together', ['Link'], async () => {
        renders += 1;
        await opened;
        ctx.status = 200;
        ctx.body = { count: renders };
        ctx.set('Link', '<http://127.0.0.1/together>; rel="next"');
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    open();
    await Promise.all(served);
    assert.is(renders, 1);
    for (const ctx of contexts) {
      assert.is((ctx.body as Buffer).toString(), '{"count":1}');
      assert.is(ctx.response.get('Link'), '<http://127.0.0.1/together>; rel="next"');
      assert.is(ctx.status, 200);
    }
  });
});

test('a request that read a newer data version does not wait for a render made before it', async () => {
  await withDatabase(async (reader, write) => {
    const cache = new ResponseCache(reader);
    const { opened, open } = gate();
    const first = context('/count');
    const before = cache.serve(first, 'k', [], async () => {
      await opened;
      first.status = 200;
      first.body = { count: 1 };
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await write('INSERT INTO t VALUES (1)');
    const after = await serve(cache, 'k', 2);
    assert.equal(after, { body: '{"count":2}', rendered: true }, 'rendered afresh, not the older answer');
    open();
    await before;
    assert.is((first.body as Buffer).toString(), '{"count":1}');
  });
});

test('when the shared render fails or answers otherwise than 200, each waiting request renders its own', async () => {
  await withDatabase(async (reader) => {
    const cache = new ResponseCache(reader);
    for (const fail of ['throws', 'status'] as const) {
      const { opened, open } = gate();
      let renders = 0;
      const contexts = Array.from({ length: 4 }, () => context('/count'));
      const served = contexts.map((ctx, i) =>
        cache.serve(ctx, `failing ${fail}`, [], async () => {
          renders += 1;
          await opened;
          if (i === 0 && fail === 'throws') throw new Error('render failed');
          ctx.status = i === 0 ? 404 : 200;
          ctx.body = i === 0 ? { error: 'Record not found' } : { count: i };
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
      open();
      const results = await Promise.allSettled(served);
      assert.is(results[0].status, fail === 'throws' ? 'rejected' : 'fulfilled');
      assert.is(renders, 4, `${fail}: every request rendered`);
      for (const i of [1, 2, 3]) assert.is((contexts[i].body as Buffer).toString(), `{"count":${i}}`);
    }
  });
});

test('the size bound counts each entry, not only its bytes: many tiny bodies stay few', async () => {
  await withDatabase(async (reader) => {
    const budget = 64 * 1024;
    const cache = new ResponseCache(reader, budget);
    const keys = Array.from({ length: 2000 }, (_, i) => `viewer /api/v2/notifications/unread_count?n=${i}`);
    for (const key of keys) await serve(cache, key, 1);
    let kept = 0;
    for (const key of keys.slice().reverse()) {
      if ((await serve(cache, key, 1)).rendered) break;
      kept += 1;
    }
    // Body (11 bytes) and key (~50) alone would fit ~1,000 entries in 64 KB; with the per-entry cost, ~200.
    assert.ok(kept > 150 && kept < 260, `kept ${kept}`);
  });
});

test('the entry bound keeps the newest entries however small they are', async () => {
  await withDatabase(async (reader) => {
    const cache = new ResponseCache(reader, 64 * 1024 * 1024, 50);
    const keys = Array.from({ length: 120 }, (_, i) => `viewer /count?n=${i}`);
    for (const key of keys) await serve(cache, key, 1);
    assert.is((await serve(cache, keys[119], 1)).rendered, false);
    assert.is((await serve(cache, keys[70], 1)).rendered, false, 'the 50th newest is kept');
    assert.is((await serve(cache, keys[69], 1)).rendered, true, 'the 51st newest is not');
  });
});

test('notification reads keep answers only for queries made of parameters they know', () => {
  const known = new Set(['limit', 'types', 'max_id']);
  assert.ok(onlyKnownParams(context('/api/v2/notifications/unread_count'), known));
  assert.ok(onlyKnownParams(context('/api/v2/notifications?limit=5&types[]=mention&types[1]=follow'), known));
  assert.not.ok(onlyKnownParams(context('/api/v2/notifications/unread_count?_=1732530000'), known), 'a cache buster');
  assert.not.ok(onlyKnownParams(context('/api/v2/notifications?limit=5&bench_request=7'), known));
});

test.run();
