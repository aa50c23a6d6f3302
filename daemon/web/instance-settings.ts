/**
 * The instance's identity on the owner API: title, short description, language, contact account
 * (GET/PUT /api/nestbox/v1/instance), the public address (PUT …/instance/base_url: the stored base
 * URL's one change function, used from the next start) and its reachability self-check (POST
 * …/instance/reachability). The probe the self-check sends to itself is answered without login.
 */
import Router from '@koa/router';
import { authenticate, requireScope } from '../http/auth.js';
import { parseBody } from '../http/body.js';
import { notFound, unprocessable } from '../lib/errors.js';
import type { TokenResolver } from '../lib/grants.js';
import type { Logger } from '../log/logger.js';
import type { InstanceIdentity } from '../social/instance/identity.js';
import { PROBE_PATH, type ReachabilityCheck } from '../social/onboarding/reachability.js';
import { changeBaseUrl, InvalidBaseUrl, storedBaseUrl } from '../store/base-url.js';
import type { Db } from '../store/db.js';
import { OWNER_API_PREFIX } from './owner-api.js';

export interface InstanceSettingsOptions {
  identity: InstanceIdentity;
  reachability: ReachabilityCheck;
  db: Db;
  /** The base URL this run uses (a change applies from the next start). */
  runningBaseUrl: string;
  resolveToken: TokenResolver;
  log: Logger;
}

export function instanceSettingsRouter(options: InstanceSettingsOptions): Router {
  const router = new Router();
  const read = requireScope('admin:read', { owner: true });
  const write = requireScope('admin:write', { owner: true });
  const auth = authenticate(options.resolveToken);
  const path = `${OWNER_API_PREFIX}/instance`;
  const describe = async () => {
    const stored = (await storedBaseUrl(options.db)) ?? options.runningBaseUrl;
    return {
      ...(await options.identity.get()),
      base_url: stored,
      running_base_url: options.runningBaseUrl,
      restart_needed: stored !== options.runningBaseUrl,
    };
  };
  const noStore = async (ctx: { set(name: string, value: string): void }, next: () => Promise<unknown>) => {
    ctx.set('Cache-Control', 'no-store');
    await next();
  };

  router.get(path, noStore, auth, read, async (ctx) => {
    ctx.body = await describe();
  });

  router.put(path, noStore, auth, write, parseBody(), async (ctx) => {
    await options.identity.update((ctx.request.body ?? {}) as Record<string, unknown>);
    options.log.info('instance identity changed');
    ctx.body = await describe();
  });

  router.put(`${path}/base_url`, noStore, auth, write, parseBody(), async (ctx) => {
    const raw = ((ctx.request.body ?? {}) as Record<string, unknown>).base_url;
    try {
      const { previous, baseUrl } = await changeBaseUrl(options.db, typeof raw === 'string' ? raw.trim() : '');
      if (previous !== baseUrl) options.log.info('base URL changed', { previous, base_url: baseUrl });
    } catch (error) {
      if (!(error instanceof InvalidBaseUrl)) throw error;
      const description = 'must be an http:// or https:// address, such as https://social.example.org';
      throw unprocessable(`Validation failed: base_url ${description}`, {
        base_url: [{ error: 'ERR_INVALID', description }],
      });
    }
    ctx.body = await describe();
  });

  router.post(`${path}/reachability`, noStore, auth, write, parseBody(), async (ctx) => {
    const raw = ((ctx.request.body ?? {}) as Record<string, unknown>).url;
    const url = typeof raw === 'string' && raw.trim() ? raw.trim().replace(/\/+$/, '') : (await describe()).base_url;
    if (!/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/i.test(url)) {
      throw unprocessable('Validation failed: url must be an http:// or https:// address', {
        url: [{ error: 'ERR_INVALID', description: 'must be an http:// or https:// address' }],
      });
    }
    ctx.body = await options.reachability.check(url);
  });

  router.get(`${PROBE_PATH}/:token`, noStore, (ctx) => {
    if (!options.reachability.owns(ctx.params.token)) throw notFound();
    ctx.body = { token: ctx.params.token };
  });

  return router;
}
