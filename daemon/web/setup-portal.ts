/**
 * The setup portal (design: "Setup portal contract"): the page at /setup and its JSON API.
 * Without login they answer only while the box is in setup mode; otherwise 404 unless the
 * caller holds the owner's token (admin:read, admin:write to submit a network).
 */
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { ConnectivityManager } from '../connectivity/manager.js';
import { parseNetworkInput } from '../connectivity/network-input.js';
import { authenticate, currentAuth, scopeAllows, type TokenResolver } from '../http/auth.js';
import { parseBody } from '../http/body.js';
import { notFound } from '../lib/errors.js';
import { loadPage, NO_CACHE, sendPage } from './static-pages.js';
import { localAddress } from './captive-portal.js';
import { linkMissing, translated } from './errors.js';

export interface SetupPortalOptions {
  connectivity: () => ConnectivityManager | null;
  resolveToken: TokenResolver;
  /** Where the owner finds the dashboard once the box is on the home network. */
  dashboardUrl: string;
  /**
   * The soft-AP interface address: when set, only requests that arrive on it are let in without
   * login (the home network must not reach the portal while the owner's setup mode is on).
   */
  apAddress: string | null;
}

const PAGES = {
  '/setup': 'setup/index.html',
  '/setup/': 'setup/index.html',
  '/setup/setup.js': 'setup/setup.js',
  '/setup/setup.css': 'setup/setup.css',
} as const;

export function setupPortalRouter(options: SetupPortalOptions): Router {
  const router = new Router();
  const pages = Object.fromEntries(Object.entries(PAGES).map(([path, file]) => [path, loadPage(file)]));
  const onSetupNetwork = (ctx: Context) => options.apAddress === null || localAddress(ctx) === options.apAddress;
  const gate = (scope: string) => async (ctx: Context, next: Next) => {
    const connectivity = options.connectivity();
    if (connectivity?.inSetupMode() && onSetupNetwork(ctx)) {
      connectivity.portalUsed();
      return next();
    }
    const auth = currentAuth(ctx);
    if (auth?.owner && scopeAllows(auth.scopes, scope)) return next();
    throw notFound();
  };
  const manager = () => options.connectivity() ?? (() => { throw linkMissing(); })();
  const read = [authenticate(options.resolveToken), gate('admin:read')];

  for (const path of Object.keys(PAGES)) {
    router.get(path, ...read, (ctx) => sendPage(ctx, pages[path]!));
  }

  router.get('/setup/api/networks', ...read, async (ctx) => {
    const connectivity = manager();
    ctx.set(NO_CACHE);
    ctx.body = ctx.query.refresh === '1' || ctx.query.refresh === 'true'
      ? await translated(() => connectivity.scan())
      : connectivity.scanList();
  });

  router.post('/setup/api/connect', authenticate(options.resolveToken), gate('admin:write'), parseBody(), async (ctx) => {
    const connectivity = manager();
    const network = await translated(async () => connectivity.submitNetwork(parseNetworkInput(ctx.request.body)));
    ctx.status = 202;
    ctx.set(NO_CACHE);
    ctx.body = { state: connectivity.setupStatus().state, ssid: connectivity.setupStatus().ssid, network_id: String(network.id) };
  });

  router.get('/setup/api/status', ...read, (ctx) => {
    ctx.set(NO_CACHE);
    ctx.body = { ...manager().setupStatus(), dashboard_url: options.dashboardUrl };
  });

  return router;
}
