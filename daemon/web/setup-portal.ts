/**
 * The setup portal (docs/architecture.md, "Setup portal and its API"): the page at /setup and its JSON API.
 * Without login they answer only while the box is in setup mode; otherwise 404 unless the
 * caller holds the owner's token (admin:read, admin:write to submit a network).
 */
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { parseNetworkInput } from '../connectivity/network-input.js';
import type { ConnectivityParts } from '../connectivity/subsystem.js';
import { authenticate, currentAuth } from '../http/auth.js';
import { scopeAllows, type TokenResolver } from '../lib/grants.js';
import { parseBody } from '../http/body.js';
import { notFound } from '../lib/errors.js';
import { loadPage, NO_CACHE, sendPage } from './static-pages.js';
import { localAddress } from './captive-portal.js';
import { translated } from './errors.js';

export interface SetupPortalOptions {
  connectivity: ConnectivityParts;
  resolveToken: TokenResolver;
  /** Where the owner finds the dashboard once the box is on the home network. */
  dashboardUrl: string;
  /**
   * The soft-AP interface address: when set, only requests that arrive on it are let in without
   * login (the home network must not reach the portal while the owner's setup mode is on).
   */
  apAddress: string | null;
  /** True while the box has no owner: the result page then leads to creating the owner account. */
  ownerNeeded: () => Promise<boolean>;
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
    const portal = options.connectivity.portal;
    if (portal.inSetupMode() && onSetupNetwork(ctx)) {
      await next();
      return;
    }
    const auth = currentAuth(ctx);
    if (!auth?.owner || !scopeAllows(auth.scopes, scope)) throw notFound();
    await next();
  };
  const read = [authenticate(options.resolveToken), gate('admin:read')];

  for (const path of Object.keys(PAGES)) {
    router.get(path, ...read, (ctx) => sendPage(ctx, pages[path]));
  }

  router.get('/setup/api/networks', ...read, async (ctx) => {
    const { portal, commands } = options.connectivity;
    ctx.set(NO_CACHE);
    ctx.body =
      ctx.query.refresh === '1' || ctx.query.refresh === 'true'
        ? await translated(() => commands.scan())
        : portal.scanList();
  });

  router.post(
    '/setup/api/connect',
    authenticate(options.resolveToken),
    gate('admin:write'),
    parseBody(),
    async (ctx) => {
      const { portal } = options.connectivity;
      const network = await translated(async () => portal.submitNetwork(parseNetworkInput(ctx.request.body)));
      ctx.status = 202;
      ctx.set(NO_CACHE);
      const { state, ssid } = portal.status();
      ctx.body = { state, ssid, network_id: String(network.id) };
    },
  );

  router.get('/setup/api/status', ...read, async (ctx) => {
    ctx.set(NO_CACHE);
    ctx.body = {
      ...options.connectivity.portal.status(),
      dashboard_url: options.dashboardUrl,
      owner_needed: await options.ownerNeeded(),
    };
  });

  return router;
}
