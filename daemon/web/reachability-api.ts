/**
 * The owner's reachability API (/api/nestbox/v1/reachability): GET the flow's state, PUT a name
 * (and dynamic-DNS login) to start or restart it, POST /retry to try the failed steps again now with
 * the saved settings, DELETE to turn it off. Secrets are never returned.
 */
import Router from '@koa/router';
import { authenticate, requireScope } from '../http/auth.js';
import { parseBody } from '../http/body.js';
import { HttpError } from '../http/errors.js';
import type { TokenResolver } from '../lib/grants.js';
import { unprocessable } from '../lib/errors.js';
import type { ReachabilityFlow } from '../reachability/flow.js';
import { parseSettings, SettingsInputError } from '../reachability/settings-input.js';
import { OWNER_API_PREFIX } from './owner-api.js';

export interface ReachabilityApiOptions {
  /** Null when the box has no HTTPS port: the API then says reachability is off. */
  flow: ReachabilityFlow | null;
  resolveToken: TokenResolver;
}

export function reachabilityRouter(options: ReachabilityApiOptions): Router {
  const router = new Router({ prefix: `${OWNER_API_PREFIX}/reachability` });
  const read = requireScope('admin:read', { owner: true });
  const write = requireScope('admin:write', { owner: true });
  const flow = () => {
    if (!options.flow)
      throw new HttpError(409, 'Reachability is off: the box has no HTTPS port (NESTBOX_HTTPS_PORT is empty)');
    return options.flow;
  };
  router.use(authenticate(options.resolveToken));
  router.use(async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    await next();
  });

  router.get('/', read, (ctx) => {
    ctx.body = flow().current;
  });

  router.put('/', write, parseBody(), async (ctx) => {
    let settings;
    try {
      settings = parseSettings(ctx.request.body);
    } catch (error) {
      if (!(error instanceof SettingsInputError)) throw error;
      throw unprocessable(`Validation failed: ${error.message}`, {
        [error.field]: [{ error: 'ERR_INVALID', description: error.message }],
      });
    }
    ctx.status = 202;
    ctx.body = await flow().configure(settings);
  });

  // "Try again now": the saved settings, without sending the secrets again.
  router.post('/retry', write, (ctx) => {
    const running = flow();
    if (!running.retry()) throw new HttpError(409, 'Nothing to retry: enter a name first');
    ctx.status = 202;
    ctx.body = running.current;
  });

  router.delete('/', write, async (ctx) => {
    await flow().disable();
    ctx.body = flow().current;
  });
  return router;
}
