/**
 * Two (or more) real daemons federating on loopback: each has its own port, data dir and base
 * URL, with NESTBOX_FEDERATION_ALLOW_PRIVATE=true. Plus polling for what arrives asynchronously.
 */
import type { LogLine, RunningDaemon } from './daemon.js';
import { startSocialDaemon, type SocialHarness } from './social.js';

/** Private federation on loopback; the embedded simulator's clocks run fast so joining Wi-Fi is quick. */
export const FEDERATION_ENV = {
  NESTBOX_FEDERATION_ALLOW_PRIVATE: 'true',
  NESTBOX_COPROC_TIME_SCALE: '20',
  NESTBOX_STABLE_S: '0',
};

/** The embedded simulator's home network (daemon/coproc/sim/world.ts). */
const HOME_NETWORK = { ssid: 'HomeNet', password: 'nestbox-home-2024', hidden: false };

export async function startFederatedDaemon(
  options: { port?: number; dataDir?: string; keepDataDir?: boolean; env?: Record<string, string> } = {},
): Promise<SocialHarness> {
  const { env = {}, ...where } = options;
  const harness = await startSocialDaemon({ ...FEDERATION_ENV, ...env }, where);
  await bringOnline(harness.daemon);
  return harness;
}

/**
 * Deliveries wait while the box is offline, so a federating box must be on its network: on first
 * boot join the simulator's home network through the setup portal, as the owner would; a box that
 * restarts with the network saved reconnects by itself.
 */
export async function bringOnline(daemon: RunningDaemon, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let submitted = false;
  for (;;) {
    const seen = daemon.logs.length;
    const { body } = await daemon.json('/healthz');
    const state = body.components?.connectivity?.detail;
    if (state === 'connected') return;
    if (state === 'setup_ap' && !submitted) {
      const { status } = await daemon.json('/setup/api/connect', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(HOME_NETWORK),
      });
      submitted = status === 202;
    }
    if (Date.now() > deadline) throw new Error(`the box did not get online (connectivity: ${state})`);
    await nextConnectivityChange(daemon, seen, Math.min(STATE_RECHECK_MS, deadline - Date.now()));
  }
}

/** Asking again at most this often when no change of state is logged (a daemon logging only warnings). */
const STATE_RECHECK_MS = 1000;

/**
 * The connectivity manager logs each change of state: waiting for the next one (after the first
 * `seen` lines) asks the daemon again only when there is something new to see.
 */
async function nextConnectivityChange(daemon: RunningDaemon, seen: number, timeoutMs: number): Promise<void> {
  const isChange = (line: LogLine) =>
    line.component === 'connectivity' && typeof line.to === 'string' && daemon.logs.indexOf(line) >= seen;
  await daemon.waitForLog(isChange, Math.max(0, timeoutMs)).catch(() => undefined);
}

/** host:port of a daemon: the domain part of its accounts' addresses. */
export function domainOf(harness: SocialHarness): string {
  return new URL(harness.url).host;
}

/**
 * Polls `probe` until it returns a truthy value; fails with `what` after `timeoutMs` (generous: a
 * follow's Accept, deliveries and key fetches are several round trips through both daemons, slow
 * when the machine is shared).
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}

/** Finds (resolving over ActivityPub) a remote account on `on`, as seen by `token`'s user. */
export async function resolveAccount(on: SocialHarness, token: string, address: string): Promise<any> {
  const found = await on.api(
    token,
    'GET',
    `/api/v2/search?resolve=true&type=accounts&q=${encodeURIComponent(address)}`,
  );
  if (found.status !== 200 || !found.body.accounts?.[0])
    throw new Error(`could not resolve ${address}: ${found.status} ${JSON.stringify(found.body)}`);
  return found.body.accounts[0];
}
