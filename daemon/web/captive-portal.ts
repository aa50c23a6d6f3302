/**
 * Captive-portal handling while the box is in setup mode: the probe URLs of iOS/macOS
 * (/hotspot-detect.html), Android/ChromeOS (/generate_204), Windows (/connecttest.txt, /ncsi.txt,
 * /redirect) never get their "internet OK" answer but a redirect to the portal, and when the
 * soft-AP address is configured any request for another host that arrives on that address is
 * redirected too (the wildcard DNS sends every name here). Nothing is cached. Outside setup mode
 * this does nothing, and `/` is the public landing page; in setup mode on the setup side `/` opens the portal.
 */
import type { Context, Middleware, Next } from 'koa';
import { NO_CACHE } from './static-pages.js';

export const PROBE_PATHS = [
  '/generate_204',
  '/gen_204',
  '/hotspot-detect.html',
  '/library/test/success.html',
  '/connecttest.txt',
  '/ncsi.txt',
  '/redirect',
  '/canonical.html',
  '/success.txt',
];

export interface CaptivePortalOptions {
  inSetupMode: () => boolean;
  /** The soft-AP interface address (NESTBOX_SETUP_AP_ADDRESS); null when not configured. */
  apAddress: string | null;
  httpPort: number;
  /** Host names that are the box itself (from the base URL), never redirected. */
  ownHosts: string[];
}

export function captivePortal(options: CaptivePortalOptions): Middleware {
  const own = new Set(options.ownHosts.map((host) => host.toLowerCase()));
  if (options.apAddress) own.add(options.apAddress);
  return async (ctx: Context, next: Next) => {
    if (!options.inSetupMode()) {
      await next();
      return;
    }
    // Requests from the home network (the owner's setup mode while connected) are left alone.
    if (options.apAddress !== null && localAddress(ctx) !== options.apAddress) {
      await next();
      return;
    }
    // The box's own front page is the public landing page, except to a phone on the setup side.
    const probe = PROBE_PATHS.includes(ctx.path) || ctx.path === '/';
    const foreignHost =
      options.apAddress !== null && !own.has(ctx.hostname.toLowerCase()) && !ctx.path.startsWith('/setup');
    if (!probe && !foreignHost) {
      await next();
      return;
    }
    ctx.set(NO_CACHE);
    ctx.redirect(portalUrl(ctx, options));
    ctx.body = 'Setup: open the portal';
  };
}

/** The local address a request arrived on (which interface), without the IPv4-mapped prefix. */
export function localAddress(ctx: Context): string {
  return (ctx.req.socket.localAddress ?? '').replace(/^::ffff:/, '');
}

function portalUrl(ctx: Context, options: CaptivePortalOptions): string {
  const host = options.apAddress ?? ctx.hostname;
  const port = options.apAddress ? options.httpPort : Number(ctx.URL.port || 80);
  return `http://${host}${port === 80 ? '' : `:${port}`}/setup`;
}
