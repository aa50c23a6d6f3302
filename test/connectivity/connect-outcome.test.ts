/**
 * The rules that turn the current firmware's events into a connect's outcome, one by one: only
 * events naming the network asked for count; 305 is success, a not-found reason ends it at once, a
 * refused-password reason at the refusal that cannot be the previous configuration's; leaving is
 * not an outcome; no deciding event is a timeout. Events come from the client's typed interface.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { watchConnectOutcome, type ConnectOutcome } from '../../daemon/connectivity/connect-outcome.js';
import { CoprocTestDouble } from './coproc-test-double.js';

const HOME = new TextEncoder().encode('HomeNet');
const OTHER = new TextEncoder().encode('OldNet');
const timer = {
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
  clearTimeout: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
};

function watch(refusalsNeeded = 1, timeoutMs = 200) {
  const client = new CoprocTestDouble();
  const pending = watchConnectOutcome(client, { ssid: HOME, timeoutMs, refusalsNeeded }, timer);
  let settled: ConnectOutcome | null = null;
  void pending.outcome.then((outcome) => (settled = outcome));
  const drop = (ssidBytes: Uint8Array, reason: number) =>
    client.emit('stationDisconnected', { reason, ssid: null, ssidBytes });
  const join = (ssidBytes: Uint8Array) =>
    client.emit('stationConnected', {
      ssid: '',
      ssidBytes,
      bssid: '3c:84:6a:11:22:33',
      channel: 6,
      security: 'wpa2_psk',
    });
  const settledNow = async () => {
    await Promise.resolve();
    return settled;
  };
  return { client, pending, drop, join, settledNow };
}

test('305 for the network asked for is success; 305 for another network is not', async () => {
  const w = watch();
  w.join(OTHER);
  assert.is(await w.settledNow(), null);
  w.join(HOME);
  assert.equal(await w.pending.outcome, { ok: true });
  assert.is(w.client.listenerCount('stationConnected'), 0, 'listening ends with the outcome');
});

test('201 for the network is not_found at once; a refusal of another network is ignored', async () => {
  const w = watch(2);
  w.drop(OTHER, 15);
  w.drop(OTHER, 202);
  assert.is(await w.settledNow(), null);
  w.drop(HOME, 201);
  assert.equal(await w.pending.outcome, { ok: false, failure: 'not_found', reason: 201 });
});

test('a refused password ends it at the refusal that cannot be the previous configuration', async () => {
  const once = watch(1);
  once.drop(HOME, 15);
  assert.equal(await once.pending.outcome, { ok: false, failure: 'auth', reason: 15 });
  const twice = watch(2);
  twice.drop(HOME, 204);
  assert.is(await twice.settledNow(), null, 'the first refusal may be the old passphrase');
  twice.join(HOME);
  assert.equal(await twice.pending.outcome, { ok: true });
  const refused = watch(2);
  refused.drop(HOME, 15);
  refused.drop(HOME, 202);
  assert.equal(await refused.pending.outcome, { ok: false, failure: 'auth', reason: 202 });
});

test('leaving (8) is the firmware retrying, not an outcome; nothing deciding is a timeout with the last reason', async () => {
  const w = watch(1, 100);
  w.drop(HOME, 8);
  assert.is(await w.settledNow(), null);
  assert.equal(await w.pending.outcome, { ok: false, failure: 'failed', reason: 8 });
  const silent = watch(1, 50);
  assert.equal(await silent.pending.outcome, { ok: false, failure: 'timeout', reason: null });
});

test('cancel stops listening', async () => {
  const w = watch();
  w.pending.cancel();
  assert.equal(await w.pending.outcome, { ok: false, failure: 'timeout', reason: null });
  assert.is(w.client.listenerCount('stationDisconnected'), 0);
});

test.run();
