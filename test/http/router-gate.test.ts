/** Routers passed over by paths none of their routes can match: never one they match, and the same answers. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Koa from 'koa';
import Router from '@koa/router';
import { gateRouter, pathGate } from '../../daemon/http/router-gate.js';

/** Route paths of the kinds the daemon's routers hold. */
const PATTERNS = [
  '/',
  '/healthz',
  '/dashboard/',
  '/api/v1/accounts/:id',
  '/api/v1/accounts/:id/statuses',
  '/api/v2/notifications/:group_key/accounts',
  '/@:username',
  '/@:username/:id',
  '/.well-known/webfinger',
  '/system/media_attachments/files/*rest',
  '/tags/:file',
  '/setup{/*rest}',
];

function routerWith(patterns: readonly string[]): Router {
  const router = new Router();
  router.use(async (_ctx, next) => next());
  for (const pattern of patterns) router.get(pattern, (ctx) => (ctx.body = pattern));
  router.post('/api/v1/statuses', (ctx) => (ctx.body = 'posted'));
  return router;
}

/** Request paths near every pattern: filled in, other letter case, trailing slashes, and misses. */
const PATHS = [
  '/',
  '//',
  '/healthz',
  '/HEALTHZ/',
  '/healthz//',
  '/dashboard',
  '/dashboard/',
  '/Dashboard//',
  '/api/v1/accounts/1',
  '/API/V1/Accounts/1/',
  '/api/v1/accounts/1/statuses',
  '/api/v2/notifications/favourite-1-2/accounts',
  '/@owner',
  '/@Owner/',
  '/@owner/1234',
  '/%40owner',
  '/.well-known/webfinger',
  '/.WELL-KNOWN/webfinger/',
  '/system/media_attachments/files/1/original.png',
  '/tags/cats.rss',
  '/setup',
  '/setup/api/status',
  '/SETUP/',
  '/api/v1/statuses',
  '/nowhere',
  '/api/v9/nothing',
  '/healthzz',
  '',
];

test('the gate lets through every path one of the routes matches, in any letter case', () => {
  for (const patterns of [PATTERNS, PATTERNS.filter((p) => p !== '/' && !p.startsWith('/@'))]) {
    const router = routerWith(patterns);
    const mayMatch = pathGate(router);
    assert.ok(mayMatch, 'routes made of literals and parameters can be gated');
    for (const path of PATHS) {
      const matched = router.match(path, 'GET').path.some((layer) => layer.methods.length > 0);
      if (matched) assert.ok(mayMatch(path), `${path} matches a route but the gate would pass the router over`);
    }
  }
});

test('the gate passes a router over for paths no route of it can match', () => {
  const mayMatch = pathGate(routerWith(['/api/v1/accounts/:id', '/healthz']))!;
  for (const path of ['/@owner', '/', '/nowhere', '/api/v2/notifications', '/healthzz/x'])
    assert.not.ok(mayMatch(path), path);
  assert.ok(mayMatch('/Api/V1/Accounts/7'));
  assert.ok(mayMatch('/healthz/'));
});

test('a router whose routes may match anything is never passed over', () => {
  assert.is(pathGate(routerWith(['/:anything'])), null);
  const regexRouter = new Router();
  regexRouter.get(/^\/re(gex)?$/, (ctx) => (ctx.body = 'regex'));
  assert.is(pathGate(regexRouter), null);
});

/** Status and Allow of every request against an app of two routers, gated or not. */
async function answers(gated: boolean): Promise<string[]> {
  const first = routerWith(['/api/v1/accounts/:id', '/healthz']);
  const second = routerWith(['/@:username', '/tags/:file']);
  const app = new Koa();
  const mount = (middleware: Koa.Middleware) => app.use(gated ? gateRouter(middleware) : middleware);
  mount(first.routes() as unknown as Koa.Middleware);
  app.use(first.allowedMethods() as unknown as Koa.Middleware);
  mount(second.routes() as unknown as Koa.Middleware);
  app.use(second.allowedMethods() as unknown as Koa.Middleware);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  const out: string[] = [];
  try {
    for (const method of ['GET', 'POST', 'DELETE', 'OPTIONS', 'PROPFIND'])
      for (const path of ['/api/v1/accounts/1', '/healthz', '/@owner', '/tags/x.rss', '/nowhere']) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, { method });
        out.push(
          `${method} ${path} ${response.status} ${response.headers.get('allow') ?? ''} ${await response.text()}`,
        );
      }
  } finally {
    server.close();
  }
  return out;
}

test('gated routers answer every method and path as the routers alone do', async () => {
  const plain = await answers(false);
  assert.equal(await answers(true), plain);
  assert.ok(plain.includes('GET /@owner 200  /@:username'), 'the second router still answers');
  assert.ok(
    plain.some((line) => line.startsWith('DELETE /healthz 405')),
    'and 405s stay',
  );
});

test('a gated dispatch still carries its router for the route table', () => {
  const router = routerWith(['/healthz']);
  const gated = gateRouter(router.routes()) as unknown as { router: Router };
  assert.is(gated.router, router);
});

test.run();
