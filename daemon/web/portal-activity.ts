/**
 * A person at the setup portal: while the box is in setup mode, every request that arrives on the
 * setup AP's address (the portal, and the dashboard and first sign-in opened from the setup
 * network) tells connectivity the portal is in use, which holds the setup AP open for a while
 * (ConnectivityPolicy.portalIdleMs). Mounted after the captive-portal redirects, so the probes a
 * phone sends by itself on joining, and its apps' requests for other hosts, never count. Without
 * an AP address the two sides cannot be told apart, and only the portal's own paths count.
 */
import type { Context, Middleware, Next } from 'koa';
import { localAddress } from './captive-portal.js';

export interface PortalActivityOptions {
  inSetupMode: () => boolean;
  /** The soft-AP interface address (NESTBOX_SETUP_AP_ADDRESS); null when not configured. */
  apAddress: string | null;
  portalUsed: () => void;
}

export function portalActivity(options: PortalActivityOptions): Middleware {
  const fromSetupSide = (ctx: Context) =>
    options.apAddress === null ? ctx.path.startsWith('/setup') : localAddress(ctx) === options.apAddress;
  return async (ctx: Context, next: Next) => {
    if (fromSetupSide(ctx) && options.inSetupMode()) options.portalUsed();
    await next();
  };
}
