import Router from '@koa/router';
import type { Health } from '../lifecycle/health.js';

/** GET /healthz: no auth, no secrets; 200 with the overall status and each component's. */
export function healthRouter(health: Health, liveChecks: () => Promise<void>): Router {
  const router = new Router();
  router.get('/healthz', async (ctx) => {
    await liveChecks();
    ctx.set('Cache-Control', 'no-store');
    ctx.body = health.report();
  });
  return router;
}
