/**
 * The social router's remembered matches (daemon/social/http/match-caching-router.ts): the same
 * routing as Koa's router on every request, a path asked again included, with a second router
 * after it on the same app (which appends its matches to the first one's list).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { MatchCachingRouter } from '../../daemon/social/http/match-caching-router.js';

interface Served {
  get(path: string, method?: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

/** Each answer names the layers matched so far (ctx.matched), which a corrupted memory would grow. */
const answer = (ctx: Koa.Context, what: string) =>
  (ctx.body = `${what} [${(ctx as unknown as { matched: unknown[] }).matched.length}]`);

/** The API's shape in small (a middleware on every path, a fixed path before an `:id` one), then the pages. */
async function serve(first: Router): Promise<Served> {
  first.use(async (_ctx, next) => next());
  first.get('/api/v1/accounts/relationships', (ctx) => answer(ctx, 'relationships'));
  first.get('/api/v1/accounts/:id', (ctx) => answer(ctx, `account ${ctx.params.id}`));
  first.post('/api/v1/statuses', (ctx) => answer(ctx, 'posted'));
  const second = new Router();
  second.use(async (_ctx, next) => next());
  second.get('/@:name', (ctx) => answer(ctx, `page ${ctx.params.name}`));
  const app = new Koa();
  app.use(first.routes());
  app.use(first.allowedMethods());
  app.use(second.routes());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    async get(path, method = 'GET') {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
      return { status: res.status, body: await res.text() };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const REQUESTS: Array<[string, string?]> = [
  ['/api/v1/accounts/relationships'],
  ['/api/v1/accounts/42'],
  ['/api/v1/accounts/43'],
  ['/@alice'],
  ['/api/v1/statuses', 'POST'],
  ['/api/v1/statuses', 'DELETE'],
  ['/nowhere'],
];

test('answers as the plain router does, the first time and every time after', async () => {
  const plain = await serve(new Router());
  const caching = await serve(new MatchCachingRouter());
  try {
    for (let round = 0; round < 3; round++)
      for (const [path, method] of REQUESTS)
        assert.equal(await caching.get(path, method), await plain.get(path, method), `${method ?? 'GET'} ${path}`);
    // Each router's middleware and the route: the same count the fourth time a path is asked.
    assert.equal(await caching.get('/@alice'), { status: 200, body: 'page alice [3]' });
    assert.equal(await caching.get('/api/v1/accounts/42'), { status: 200, body: 'account 42 [2]' });
  } finally {
    await plain.close();
    await caching.close();
  }
});

test('a long made-up path is routed but not remembered', async () => {
  const router = new MatchCachingRouter();
  const served = await serve(router);
  try {
    const id = '7'.repeat(300);
    assert.equal(await served.get(`/api/v1/accounts/${id}`), { status: 200, body: `account ${id} [2]` });
    assert.equal(await served.get('/api/v1/accounts/42'), { status: 200, body: 'account 42 [2]' });
    assert.is(router.rememberedPaths, 1);
  } finally {
    await served.close();
  }
});

test.run();
