import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Router from '@koa/router';
import { HttpServer } from '../../daemon/http/server.js';
import { parseBody } from '../../daemon/http/body.js';
import { unprocessable } from '../../daemon/lib/errors.js';
import { Logger } from '../../daemon/log/logger.js';
import { dialectFor } from '../../daemon/store/dialect.js';

const quiet = new Logger('silent');

async function serverWith(setup: (router: Router) => void) {
  const server = new HttpServer({ host: '127.0.0.1', port: 0, log: quiet });
  const router = new Router();
  setup(router);
  server.use(parseBody());
  server.use(router.routes());
  const { port } = await server.start();
  return { server, url: `http://127.0.0.1:${port}` };
}

test('stop() lets an in-flight request finish, then refuses new connections', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const { server, url } = await serverWith((router) => {
    router.get('/slow', async (ctx) => {
      await gate;
      ctx.body = { done: true };
    });
  });
  const inFlight = fetch(`${url}/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const stopped = server.stop(5000);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await fetch(`${url}/slow`).then(
    () => assert.unreachable('a new request must be refused while stopping'),
    (error: Error) => assert.ok(error),
  );
  release();
  assert.equal(await inFlight, { status: 200, body: { done: true } });
  await stopped;
});

test('stop() gives up on a request that outlives the grace period', async () => {
  const { server, url } = await serverWith((router) => {
    router.get('/hang', async () => {
      await new Promise(() => undefined);
    });
  });
  const hanging = fetch(`${url}/hang`).then(
    () => 'answered',
    () => 'cut off',
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  const started = Date.now();
  await server.stop(300);
  assert.ok(Date.now() - started < 3000);
  assert.is(await hanging, 'cut off');
});

test('errors use the Mastodon shape: bad JSON 400, oversized body 413, 422 with details, 500 without a stack', async () => {
  const { server, url } = await serverWith((router) => {
    router.post('/echo', (ctx) => {
      ctx.body = ctx.request.body;
    });
    router.post('/invalid', () => {
      throw unprocessable('Validation failed: Username is taken', {
        username: [{ error: 'ERR_TAKEN', description: 'is taken' }],
      });
    });
    router.get('/boom', () => {
      throw new Error('secret internals at /srv/x.js');
    });
  });
  try {
    const json = { 'content-type': 'application/json' };
    let r = await fetch(`${url}/echo`, { method: 'POST', headers: json, body: '{"a":' });
    assert.is(r.status, 400);
    assert.equal(await r.json(), { error: 'Invalid JSON in request body' });
    r = await fetch(`${url}/echo`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ x: 'a'.repeat(1024 * 1024 + 10) }),
    });
    assert.is(r.status, 413);
    assert.equal(await r.json(), { error: 'Payload too large' });
    r = await fetch(`${url}/echo`, { method: 'POST', headers: json, body: '{"ok":true}' });
    assert.equal(await r.json(), { ok: true });
    r = await fetch(`${url}/invalid`, { method: 'POST' });
    assert.is(r.status, 422);
    assert.equal(await r.json(), {
      error: 'Validation failed: Username is taken',
      details: { username: [{ error: 'ERR_TAKEN', description: 'is taken' }] },
    });
    r = await fetch(`${url}/boom`);
    assert.is(r.status, 500);
    const text = await r.text();
    assert.equal(JSON.parse(text), { error: 'Internal server error' });
    assert.not.match(text, /srv|stack/);
  } finally {
    await server.stop();
  }
});

test('a write that meets a full disk is 507 with the error body and the listener is told; our own errors keep their status', async () => {
  let told = 0;
  const server = new HttpServer({
    host: '127.0.0.1',
    port: 0,
    log: quiet,
    onOutOfSpace: () => {
      told += 1;
    },
  });
  const router = new Router();
  router.post('/sqlite', () => {
    throw Object.assign(new Error('insert into `statuses` - SQLITE_FULL: database or disk is full'), {
      code: 'SQLITE_FULL',
    });
  });
  router.post('/validation', () => {
    throw unprocessable('Validation failed: text mentions ENOSPC');
  });
  server.use(router.routes());
  const { port } = await server.start();
  try {
    const full = await fetch(`http://127.0.0.1:${port}/sqlite`, { method: 'POST' });
    assert.is(full.status, 507);
    assert.match(((await full.json()) as { error: string }).error, /storage is full, so nothing was saved/);
    assert.is(told, 1);
    const mine = await fetch(`http://127.0.0.1:${port}/validation`, { method: 'POST' });
    assert.is(mine.status, 422);
    assert.is(told, 1);
  } finally {
    await server.stop();
  }
});

test('text the database cannot store (a NUL on PostgreSQL) is 400 with the error body; other database errors stay 500', async () => {
  const postgres = dialectFor('postgres');
  const server = new HttpServer({
    host: '127.0.0.1',
    port: 0,
    log: quiet,
    unstorableText: (error) => postgres.isUnstorableText(error),
  });
  const router = new Router();
  // What node-postgres rejects with when a bound text holds a NUL.
  router.post('/nul', () => {
    throw Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
  });
  router.post('/other', () => {
    throw Object.assign(new Error('relation "nothing" does not exist'), { code: '42P01' });
  });
  server.use(router.routes());
  const { port } = await server.start();
  try {
    const nul = await fetch(`http://127.0.0.1:${port}/nul`, { method: 'POST' });
    assert.is(nul.status, 400);
    assert.equal(await nul.json(), { error: 'Text may not contain NUL characters' });
    const other = await fetch(`http://127.0.0.1:${port}/other`, { method: 'POST' });
    assert.is(other.status, 500);
    assert.equal(await other.json(), { error: 'Internal server error' });
  } finally {
    await server.stop();
  }
});

test('a SQLite database another process kept locked is 503 with Retry-After; other SQLite errors stay 500', async () => {
  const sqlite = dialectFor('sqlite');
  const server = new HttpServer({
    host: '127.0.0.1',
    port: 0,
    log: quiet,
    databaseBusy: (error) => sqlite.isBusy(error),
  });
  const router = new Router();
  // What node-sqlite3 rejects with once the busy timeout has passed.
  router.post('/locked', () => {
    throw Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY', errno: 5 });
  });
  router.post('/other', () => {
    throw Object.assign(new Error('SQLITE_ERROR: no such table: nothing'), { code: 'SQLITE_ERROR', errno: 1 });
  });
  server.use(router.routes());
  const { port } = await server.start();
  try {
    const locked = await fetch(`http://127.0.0.1:${port}/locked`, { method: 'POST' });
    assert.is(locked.status, 503);
    assert.is(locked.headers.get('retry-after'), '5');
    assert.equal(await locked.json(), { error: 'The database is busy; try again shortly' });
    const other = await fetch(`http://127.0.0.1:${port}/other`, { method: 'POST' });
    assert.is(other.status, 500);
  } finally {
    await server.stop();
  }
});

test.run();
