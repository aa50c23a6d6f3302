/**
 * The box of the reachability scenarios: the daemon in the virtual home's box namespace with HTTP
 * on 80 and HTTPS on 443, trusting the virtual internet's roots, an owner with a token, online on
 * the home Wi-Fi with a lease, and miniupnpd started on the router once the LAN link is up.
 */
import type { RunningDaemon } from '../daemon.js';
import type { VirtualHome } from '../virtual-home/index.js';
import { DYNDNS, type VirtualInternet } from './index.js';
import { createOwnerToken } from '../owner-token.js';

const HOME_WIFI = { ssid: 'HomeNet', password: 'nestbox-home-2024' };

export type Step = { state: string; detail: string | null };
export type ReachabilityView = {
  name: string | null;
  external_address: string | null;
  ipv6_address?: string | null;
  families?: { ipv4: Step; ipv6: Step };
  steps: Record<string, Step>;
  certificate: { not_after: string } | null;
  public_url: string | null;
  manual: { internal_address: string; ports: Array<{ external: number; internal: number }> } | null;
};

export interface ReachableBox {
  daemon: RunningDaemon;
  ownerToken: string;
  address: string;
  owner(init?: RequestInit): RequestInit;
  view(): Promise<ReachabilityView>;
  /** Polls `probe` every 250 ms until it gives a value; the error shows the reachability state. */
  until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T>;
}

/** `env` adds to (or overrides) the daemon's settings below, e.g. a longer cycle or the log level. */
export async function startReachableBox(
  home: VirtualHome,
  internet: VirtualInternet,
  env: Record<string, string> = {},
): Promise<ReachableBox> {
  const daemon = await home.startDaemon(
    {
      NESTBOX_HTTPS_PORT: '443',
      NESTBOX_ACME_DIRECTORY: `https://acme.example.test:14000/dir`,
      NESTBOX_ACME_CA_FILE: internet.caFile,
      NESTBOX_BASE_URL: 'http://nestbox.local',
      NESTBOX_FEDERATION_ALLOW_PRIVATE: 'true',
      // The router asked every 3 s: an address change, a reboot or UPnP off is seen within seconds.
      NESTBOX_REACHABILITY_CYCLE_S: '3',
      // Asked only when the router tells nothing (UPnP off, below).
      NESTBOX_ADDRESS_ECHO_URL: `http://${DYNDNS.name}:${DYNDNS.port}/checkip`,
      ...env,
    },
    { port: 80 },
  );
  const ownerToken = await createOwnerToken(daemon.dataDir, 'read write admin:read admin:write');
  const owner = (init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json', ...init.headers },
  });
  const view = async (): Promise<ReachabilityView> => {
    const answer = await daemon.json('/api/nestbox/v1/reachability', owner());
    if (answer.status !== 200) throw new Error(`GET reachability: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as ReachabilityView;
  };
  const until = async <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    for (;;) {
      try {
        const value = await probe();
        if (value !== undefined && value !== false) return value;
      } catch (error) {
        last = error;
      }
      if (Date.now() > deadline) {
        const state = await view().catch((error) => String(error));
        throw new Error(
          `${what}: not within ${timeoutMs} ms (${last instanceof Error ? last.message : ''}); reachability: ${JSON.stringify(state)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };
  const saved = await daemon.json(
    '/api/nestbox/v1/networks',
    owner({ method: 'POST', body: JSON.stringify({ ssid: HOME_WIFI.ssid, password: HOME_WIFI.password }) }),
  );
  if (saved.status !== 201) throw new Error(`saving the home network: ${saved.status} ${JSON.stringify(saved.body)}`);
  const address = await until(
    'the station lease',
    async () => {
      const state = (await daemon.json('/api/nestbox/v1/state', owner())).body as {
        network: { address: string } | null;
      };
      return state.network?.address.split('/')[0];
    },
    60_000,
  );
  await internet.startMiniupnpd(true);
  return { daemon, ownerToken, address, owner, view, until };
}
