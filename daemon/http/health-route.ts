import Router from '@koa/router';
import type { Health } from '../lifecycle/health.js';

/** GET /healthz: no auth, no secrets; 200 with the overall status and each component's. GET /health: Mastodon's plain OK. */
export function healthRouter(health: Health, liveChecks: () => Promise<void>): Router {
  const router = new Router();
  router.get('/healthz', async (ctx) => {
    await liveChecks();
    ctx.set('Cache-Control', 'no-store');
    ctx.body = health.report();
  });
  // Mastodon's liveness check, which uptime monitors of Mastodon servers poll: the web side answers.
  router.get('/health', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/plain';
    ctx.body = 'OK';
  });
  return router;
}
