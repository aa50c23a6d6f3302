/**
 * The set-up of the reachability scenario (and its benchmark): the virtual home behind the virtual
 * internet's router, the box on it, and the owner's steps. The bindings below are live: a test file
 * imports them and calls `useReachabilityScenario` once, and they hold the running parts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VirtualHome } from '../virtual-home/index.js';
import { DYNDNS, VirtualInternet, type VirtualInternetOptions } from './index.js';
import { startReachableBox, type ReachableBox } from './box.js';
import { keepScenarioLog } from '../scenario-log.js';

export const NAME = 'social.example.test';

export let home: VirtualHome;
export let internet: VirtualInternet;
export let box: ReachableBox;

/**
 * Builds the home, the internet (pebble's certificates last `certificateSeconds`; `options` add to
 * it, e.g. the owner's own DNS server or IPv6) and the box (`boxEnv` adds to its settings) before the
 * file's tests.
 */
export function useReachabilityScenario(
  certificateSeconds: number,
  options: Omit<VirtualInternetOptions, 'certificateSeconds'> = {},
  boxEnv: Record<string, string> = {},
): void {
  test.before(async () => {
    const started = Date.now();
    home = await VirtualHome.build({ timeScale: 10, homeDhcp: false });
    const homeBuilt = Date.now();
    internet = await VirtualInternet.build(home, { ...options, certificateSeconds });
    const internetBuilt = Date.now();
    box = await startReachableBox(home, internet, boxEnv);
    console.log(
      `set-up: home ${homeBuilt - started} ms, internet ${internetBuilt - homeBuilt} ms, box online ${Date.now() - internetBuilt} ms`,
    );
  });

  test.after(async () => {
    if (box) keepScenarioLog(box.daemon.logs, home.describeTimeline(-1, Infinity));
    await internet?.close();
    await home?.close();
  });
}

export const view = () => box.view();
export const until = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs: number) =>
  box.until(what, probe, timeoutMs);

/** Enters the name (and the provider's login), as the dashboard does. */
export async function enterName(dyndns: boolean): Promise<void> {
  await enterSettings({
    name: NAME,
    dyndns: dyndns
      ? {
          protocol: 'dyndns2',
          url: `http://${DYNDNS.name}:${DYNDNS.port}/nic/update`,
          username: DYNDNS.user,
          password: DYNDNS.password,
        }
      : null,
  });
}

/** PUTs the owner's settings (a name and a provider, any kind); the answer carries no secret. */
export async function enterSettings(settings: { name: string; dyndns: Record<string, string> | null }): Promise<void> {
  const put = await box.daemon.json(
    '/api/nestbox/v1/reachability',
    box.owner({ method: 'PUT', body: JSON.stringify(settings) }),
  );
  assert.is(put.status, 202, JSON.stringify(put.body));
  for (const secret of [settings.dyndns?.password, settings.dyndns?.key_secret])
    if (secret) assert.not.match(JSON.stringify(put.body), secret);
}
