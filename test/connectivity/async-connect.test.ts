/**
 * Connecting on both firmware generations through the real client, framing and subsystem with
 * the embedded simulator: the current firmware answers ConnectAP at once, so the outcome is taken
 * from its events about the network asked for; a refused passphrase is never saved as good; the
 * firmware's own retries neither race the host's nor outlive a connect the host gave up on.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { OperationName } from '../../daemon/coproc/operations.js';
import { DISCONNECT_REASON, SIM_NETWORKS } from '../../daemon/coproc/sim/index.js';
import { startSimConnectivity, SIM_HOME, type SimConnectivity } from '../helpers/sim-connectivity.js';

const ENV = {
  NESTBOX_COPROC_TIME_SCALE: '50',
  NESTBOX_STABLE_S: '0',
  NESTBOX_RECONNECT_DELAY_MS: '100',
  NESTBOX_FALLBACK_AFTER_S: '600',
};
const text = (value: string) => new TextEncoder().encode(value);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MODE_AP = 2;

async function rig(firmware: 'documented' | 'current', homeSaved = false): Promise<SimConnectivity> {
  return startSimConnectivity({ env: { ...ENV, NESTBOX_SIM_FIRMWARE: firmware }, homeSaved });
}

async function submit(r: SimConnectivity, ssid: string, passphrase: string) {
  return r.connectivity.portal.submitNetwork({ ssid: text(ssid), passphrase, hidden: false });
}

/** Until the status API shows an error (what the setup page shows). */
async function failureShown(r: SimConnectivity, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { error } = r.connectivity.portal.status();
    if (error) return error;
    if (Date.now() > deadline) throw new Error(`no failure shown (${r.device.get().connectivity})`);
    await sleep(20);
  }
}

/** The device's requests from now on, by name. */
function requests(r: SimConnectivity): OperationName[] {
  const seen: OperationName[] = [];
  r.sim.device.on('request', (name) => seen.push(name));
  return seen;
}

for (const firmware of ['documented', 'current'] as const) {
  test(`${firmware}: a refused passphrase is "auth" and never saved as good; the right one connects`, async () => {
    const r = await rig(firmware);
    try {
      await r.until((s) => s.connectivity === 'setup_ap', 'setup AP');
      const wrong = await submit(r, SIM_HOME.ssid, 'not-the-passphrase');
      assert.is(await failureShown(r), 'auth');
      const saved = await r.networks.get(wrong.id);
      assert.is(saved?.lastSuccessAt, null);
      assert.ok(saved!.authFailures >= 1);
      assert.is(r.device.get().wifi.ssid, null);
      assert.is.not(r.device.get().connectivity, 'connected');
      if (firmware === 'current') {
        // The host gave up on it: the firmware no longer retries the refused passphrase.
        assert.is(r.sim.device.snapshot().retrying, null);
      }
      const right = await submit(r, SIM_HOME.ssid, SIM_HOME.passphrase);
      await r.until((s) => s.connectivity === 'connected' && s.wifi.ssid === SIM_HOME.ssid, 'connected');
      assert.ok((await r.networks.get(right.id))?.lastSuccessAt);
    } finally {
      await r.close();
    }
  });
}

test('current: a missing network is "not_found" (reason 201)', async () => {
  const r = await rig('current');
  try {
    await r.until((s) => s.connectivity === 'setup_ap', 'setup AP');
    await submit(r, 'NoSuchNetwork', 'whatever-123');
    assert.is(await failureShown(r), 'not_found');
    assert.is(r.sim.device.snapshot().retrying, null);
  } finally {
    await r.close();
  }
});

test("current: the refusal of the previous passphrase (the firmware's first try) is not the new one's outcome", async () => {
  const r = await rig('current');
  try {
    await r.until((s) => s.connectivity === 'setup_ap', 'setup AP');
    await submit(r, SIM_HOME.ssid, 'not-the-passphrase');
    assert.is(await failureShown(r), 'auth');
    // The firmware holds the refused passphrase: its first try after the next ConnectAP is that one
    // (303, HomeNet, 15); only then does it apply the right one.
    const refusals: number[] = [];
    r.client.on('stationDisconnected', ({ reason }) => refusals.push(reason));
    await submit(r, SIM_HOME.ssid, SIM_HOME.passphrase);
    await r.until((s) => s.connectivity === 'connected', 'connected');
    assert.ok(refusals.includes(DISCONNECT_REASON.handshakeTimeout), JSON.stringify(refusals));
    assert.is(r.connectivity.portal.status().error, null);
  } finally {
    await r.close();
  }
});

test("current: switching networks while connected — the old network's events are not the outcome", async () => {
  const r = await rig('current', true);
  try {
    await r.until((s) => s.connectivity === 'connected', 'connected to HomeNet');
    await submit(r, SIM_NETWORKS.open.ssid, '');
    await r.until((s) => s.wifi.ssid === SIM_NETWORKS.open.ssid && s.connectivity === 'connected', 'on the café');
    assert.is(r.sim.device.snapshot().station, SIM_NETWORKS.open.ssid);
  } finally {
    await r.close();
  }
});

test('current: after a drop the firmware reconnects by itself; the host sends no ConnectAP of its own', async () => {
  const r = await rig('current', true);
  try {
    await r.until((s) => s.connectivity === 'connected', 'connected');
    const seen = requests(r);
    r.sim.device.kickStation(DISCONNECT_REASON.beaconTimeout);
    await r.until((s) => s.connectivity === 'reconnecting', 'reconnecting');
    await r.until((s) => s.connectivity === 'connected', 'connected again');
    assert.not.ok(seen.includes('connectAp'), seen.join(' '));
    assert.not.ok(seen.includes('setMode'), seen.join(' '));
  } finally {
    await r.close();
  }
});

test('current: a restart asked by the owner stops the station; the firmware does not rejoin by itself', async () => {
  const r = await rig('current', true);
  try {
    await r.until((s) => s.connectivity === 'connected', 'connected');
    const seen = requests(r);
    const connected: string[] = [];
    r.client.on('stationConnected', ({ ssid }) => connected.push(ssid));
    await r.connectivity.commands.restartCoprocessor();
    await r.until((s) => s.connectivity === 'connected', 'connected after the restart');
    // One join: the host's, after the re-initialisation; none raced it from the firmware's retries.
    assert.equal(connected, [SIM_HOME.ssid]);
    assert.ok(seen.includes('setMode'), seen.join(' '));
    assert.not.ok(seen.includes('disconnectAp'), seen.join(' '));
  } finally {
    await r.close();
  }
});

test("current: the setup AP that came up while the firmware was retrying ended its retries; the next attempt is the host's own ConnectAP", async () => {
  const r = await startSimConnectivity({
    env: {
      ...ENV,
      NESTBOX_SIM_FIRMWARE: 'current',
      NESTBOX_RECONNECT_DELAY_MS: '2500',
      NESTBOX_FALLBACK_AFTER_S: '1',
    },
  });
  try {
    await r.until((s) => s.connectivity === 'connected', 'connected');
    // The access point changes its passphrase: the firmware drops and retries the old one by itself.
    r.sim.device.setPassphrase(SIM_HOME.ssid, 'the-new-home-passphrase');
    await r.until((s) => s.softap.active, 'setup AP after the grace period');
    assert.is(r.sim.device.snapshot().mode, MODE_AP);
    const seen = requests(r);
    assert.is(await failureShown(r), 'auth');
    assert.ok(seen.includes('connectAp'), seen.join(' '));
  } finally {
    await r.close();
  }
});

test('current: the setup AP on a box that is not connected is AP-only (no station retries beside it)', async () => {
  const r = await rig('current');
  try {
    await r.until((s) => s.connectivity === 'setup_ap' && s.softap.active, 'setup AP');
    const snapshot = r.sim.device.snapshot();
    assert.is(snapshot.mode, MODE_AP);
    assert.is(snapshot.retrying, null);
  } finally {
    await r.close();
  }
});

test.run();
