/**
 * The connectivity web surface (captive portal, setup portal, owner API, dashboard) on a real
 * HTTP server on loopback, over the manager fixture. Owner tokens are resolved by a fixed table
 * standing in for the social instance's OAuth store, which supplies the real resolver.
 */
import type { AuthContext, TokenResolver } from '../../daemon/lib/grants.js';
import { HttpServer } from '../../daemon/http/server.js';
import { Logger, silentLogger } from '../../daemon/log/logger.js';
import type { SimConnectivity } from '../helpers/sim-connectivity.js';
import { mountConnectivityWeb } from '../../daemon/web/mount.js';
import type { ConnectivityPolicy } from '../../daemon/connectivity/policy.js';
import { startManagerFixture, type ManagerFixture } from './connectivity-fixture.js';
import type { CoprocTestDouble } from './coproc-test-double.js';
import type { NetworksRepo } from '../../daemon/connectivity/networks-repo.js';

const auth = (scopes: string, owner: boolean): AuthContext => ({
  tokenId: '1',
  accountId: '1',
  appId: '1',
  scopes: new Set(scopes.split(' ')),
  owner,
});
export const TOKENS: Record<string, AuthContext> = {
  'owner-token': auth('admin:read admin:write', true),
  'owner-read-token': auth('admin:read', true),
  'guest-token': auth('admin:read admin:write read write', false),
};
const resolveToken: TokenResolver = async (token) => TOKENS[token] ?? null;

export interface WebFixture extends ManagerFixture {
  url: string;
  port: number;
  json(path: string, init?: RequestInit & { token?: string }): Promise<{ status: number; body: any; headers: Headers }>;
  closeAll(): Promise<void>;
}

export async function startWebFixture(
  options: {
    apAddress?: string | null;
    policy?: Partial<ConnectivityPolicy>;
    prepare?: (coproc: CoprocTestDouble, networks: NetworksRepo) => Promise<void>;
  } = {},
): Promise<WebFixture> {
  const fixture = await startManagerFixture(options.policy, options.prepare);
  const http = new HttpServer({ host: '127.0.0.1', port: 0, log: new Logger('silent') });
  let url = '';
  mountConnectivityWeb(http, {
    device: fixture.device,
    networks: fixture.networks,
    connectivity: fixture.connectivity,
    resolveToken,
    baseUrl: 'http://nestbox.test',
    httpHost: '127.0.0.1',
    httpPort: 80,
    setupApAddress: options.apAddress ?? null,
    setupPortalPort: 80,
    ownerNeeded: async () => false,
  });
  const address = await http.start();
  url = `http://127.0.0.1:${address.port}`;
  return {
    ...fixture,
    url,
    port: address.port,
    async json(path, init = {}) {
      const headers = new Headers(init.headers);
      if (init.token) headers.set('Authorization', `Bearer ${init.token}`);
      if (init.body && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
      const response = await fetch(url + path, { ...init, headers, redirect: 'manual' });
      const text = await response.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* keep text */
      }
      return { status: response.status, body, headers: response.headers };
    },
    async closeAll() {
      await http.stop(100);
      await fixture.close();
    },
  };
}

/** The owner API and pages over a simulator rig (sim-connectivity.ts) on loopback; the tokens above. */
export async function serveRigWeb(rig: SimConnectivity): Promise<{ http: HttpServer; url: string }> {
  const http = new HttpServer({ host: '127.0.0.1', port: 0, log: silentLogger });
  mountConnectivityWeb(http, {
    device: rig.device,
    networks: rig.networks,
    connectivity: rig.connectivity,
    resolveToken,
    baseUrl: 'http://nestbox.test',
    httpHost: '127.0.0.1',
    httpPort: 80,
    setupApAddress: null,
    setupPortalPort: 80,
    ownerNeeded: async () => false,
  });
  return { http, url: `http://127.0.0.1:${(await http.start()).port}` };
}
