/**
 * Where Home Assistant's "Visit" should lead: the owner's dashboard as another machine reaches it.
 * Once the box has switched to its public name (DeviceState `reachability.public_url`), that
 * address; otherwise the base URL the box started with, where `localhost` means nothing to another
 * machine, so then the box's mDNS name (`<hostname>.local`, announced while the network layer runs)
 * or its leased address is used.
 */
import { isIP } from 'node:net';
import type { DeviceStateData } from '../device/state.js';

export interface DashboardLocation {
  /** The instance's base URL at start, unless that is the public name the box switched to (then its home URL). */
  baseUrl: string;
  httpPort: number;
  /** The name the box announces as `<hostname>.local`; null when nothing announces it. */
  mdnsHostname: string | null;
}

const DASHBOARD_PATH = '/dashboard';

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1';
}

/** The dashboard's URL for other machines, or null when the box knows none. */
export function dashboardUrl(location: DashboardLocation, state: Readonly<DeviceStateData>): string | null {
  const switched = state.reachability.public_url;
  if (switched) return new URL(DASHBOARD_PATH, switched).href;
  const base = new URL(location.baseUrl);
  if (!isLoopbackHost(base.hostname)) return new URL(DASHBOARD_PATH, base).href;
  const port = location.httpPort === 80 ? '' : `:${location.httpPort}`;
  if (location.mdnsHostname) return `http://${location.mdnsHostname}.local${port}${DASHBOARD_PATH}`;
  const address = state.network?.address.split('/')[0];
  return address ? `http://${isIP(address) === 6 ? `[${address}]` : address}${port}${DASHBOARD_PATH}` : null;
}
