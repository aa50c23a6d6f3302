import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FirmwareModel, REASON_FRESH_MS, type FirmwareInput } from '../../daemon/connectivity/firmware-model.js';
import type { SavedNetwork } from '../../daemon/connectivity/networks-repo.js';

const bytes = (text: string) => new TextEncoder().encode(text);

function network(id: number, ssid: string, passphrase = 'correct horse'): SavedNetwork {
  return {
    id,
    ssid: bytes(ssid),
    passphrase,
    hidden: false,
    priority: id,
    authFailures: 0,
    passwordRefused: false,
    lastSuccessAt: null,
  };
}

const HOME = network(1, 'home');
const CAFE = network(2, 'cafe');
const ATTIC = network(3, 'attic');

/** The model with an injected clock: every input is stamped with `now`. */
function harness() {
  const model = new FirmwareModel();
  let now = 1_000_000;
  const feed = (input: FirmwareInput) => model.observe({ ...input, at: now });
  const advance = (ms: number) => (now += ms);
  return { model, feed, advance, now: () => now };
}

/** The current firmware, initialised, on `joined` (or on nothing). */
function current(joined: SavedNetwork | null = null) {
  const h = harness();
  h.feed({ type: 'probed', version: 'FG-1.0.0.0.0', generation: 'current' });
  h.feed({ type: 'stationRead', ssid: joined?.ssid ?? null });
  return h;
}

// ── identity and generation ──────────────────────────────────────────────────────────────────

test('identity: nothing known before the chip tells anything', () => {
  const { model } = harness();
  assert.equal(model.identity(), { firmware: null, chip: null, firmware_version: null, firmware_generation: null });
  assert.is(model.generation, null);
});

test('identity: the boot announcement names the chip; with a version it tells the current generation', () => {
  const { model, feed } = harness();
  feed({ type: 'boot', chip: 'ESP32', firmwareVersion: null });
  assert.equal(model.identity(), {
    firmware: 'ESP-Hosted-FG (ESP32)',
    chip: 'ESP32',
    firmware_version: null,
    firmware_generation: null,
  });
  feed({ type: 'boot', chip: 'ESP32', firmwareVersion: 'FG-1.0.0.0.0' });
  assert.equal(model.identity(), {
    firmware: 'ESP-Hosted-FG FG-1.0.0.0.0 (ESP32)',
    chip: 'ESP32',
    firmware_version: 'FG-1.0.0.0.0',
    firmware_generation: 'current',
  });
  // Shown at once, but connects follow the generation found at the initialisation.
  assert.is(model.generation, null);
  assert.not.ok(model.connectsByEvents);
});

test('generation: a silent probe is the documented firmware', () => {
  const { model, feed } = harness();
  feed({ type: 'boot', chip: 'ESP32', firmwareVersion: null });
  feed({ type: 'probed', version: null, generation: 'documented' });
  assert.is(model.generation, 'documented');
  assert.is(model.identity().firmware_generation, 'documented');
  assert.not.ok(model.connectsByEvents);
});

test('generation: a probe lost on a busy link is not the documented firmware when the boot announced a version', () => {
  const { model, feed } = harness();
  feed({ type: 'boot', chip: 'ESP32', firmwareVersion: 'FG-1.0.0.0.0' });
  feed({ type: 'probed', version: null, generation: 'documented' });
  assert.is(model.generation, 'current');
  assert.is(model.identity().firmware_version, 'FG-1.0.0.0.0', 'the announced version stays');
  assert.ok(model.connectsByEvents);
});

test('generation: a boot without a version lets the next probe decide again', () => {
  const { model, feed } = harness();
  feed({ type: 'boot', chip: 'ESP32', firmwareVersion: 'FG-1.0.0.0.0' });
  feed({ type: 'boot', chip: 'ESP32', firmwareVersion: null });
  feed({ type: 'probed', version: null, generation: 'documented' });
  assert.is(model.generation, 'documented');
});

test('generation: the probe answered gives the version', () => {
  const { model, feed } = harness();
  feed({ type: 'probed', version: 'FG-1.0.1.0.0', generation: 'current' });
  assert.equal(model.identity(), {
    firmware: 'ESP-Hosted-FG FG-1.0.1.0.0',
    chip: null,
    firmware_version: 'FG-1.0.1.0.0',
    firmware_generation: 'current',
  });
});

// ── the station at an initialisation ─────────────────────────────────────────────────────────

test('initialisation: the current firmware not connected has its station stopped; connected, not', () => {
  const { model } = current();
  assert.ok(model.stopsStationAtInit(false), 'it would keep trying what it holds');
  assert.not.ok(model.stopsStationAtInit(true));
  const documented = harness();
  documented.feed({ type: 'probed', version: null, generation: 'documented' });
  assert.not.ok(documented.model.stopsStationAtInit(false), 'the documented firmware retries nothing');
});

test('stopping the station: the mode without it keeps the soft AP', () => {
  const { model } = current();
  assert.is(model.stationlessMode('apsta'), 'softap');
  assert.is(model.stationlessMode('station'), 'none');
  assert.is(model.stationlessMode('softap'), null);
  assert.is(model.stationlessMode('none'), null);
});

// ── disconnects ──────────────────────────────────────────────────────────────────────────────

test('disconnect: one naming the network the box is on is a drop', () => {
  const { feed } = current(HOME);
  assert.ok(feed({ type: 'stationDisconnected', reason: 8, ssid: HOME.ssid, stationJoined: true }));
});

test('disconnect: one naming another network (the previous configuration, or one being tried) is not', () => {
  const { feed } = current(HOME);
  assert.not.ok(feed({ type: 'stationDisconnected', reason: 15, ssid: CAFE.ssid, stationJoined: true }));
});

test('disconnect: one that names no network (the documented firmware) always reaches the machine', () => {
  const { feed } = current(HOME);
  assert.ok(feed({ type: 'stationDisconnected', reason: 200, ssid: null, stationJoined: true }));
  const off = current();
  assert.ok(off.feed({ type: 'stationDisconnected', reason: 200, ssid: CAFE.ssid, stationJoined: false }));
});

// ── which network is tried ───────────────────────────────────────────────────────────────────

test('choice: the saved networks in turn, attempt by attempt', () => {
  const { model } = current();
  const saved = [HOME, CAFE, ATTIC];
  assert.is(model.chooseNetwork(saved, 1).id, HOME.id);
  assert.is(model.chooseNetwork(saved, 2).id, CAFE.id);
  assert.is(model.chooseNetwork(saved, 4).id, HOME.id);
  assert.is(model.target?.id, HOME.id, 'the last chosen is the target');
});

test('choice: a submitted network goes first, once', () => {
  const { model, feed } = current();
  feed({ type: 'submitted', network: ATTIC });
  assert.is(model.target?.id, ATTIC.id);
  assert.is(model.chooseNetwork([HOME, CAFE, ATTIC], 1).id, ATTIC.id);
  assert.is(model.chooseNetwork([HOME, CAFE, ATTIC], 1).id, HOME.id);
});

test('choice: the network the firmware is retrying by itself after a drop goes first', () => {
  const { model, feed } = current(CAFE);
  feed({ type: 'configHandedOver', network: CAFE });
  feed({ type: 'joined', network: CAFE });
  feed({ type: 'stationDisconnected', reason: 8, ssid: CAFE.ssid, stationJoined: true });
  assert.ok(model.retries(CAFE));
  assert.is(model.chooseNetwork([HOME, CAFE], 1).id, CAFE.id);
});

test('retries: only a drop while joined, of the configuration it holds with this passphrase', () => {
  const notJoined = current(CAFE);
  notJoined.feed({ type: 'configHandedOver', network: CAFE });
  notJoined.feed({ type: 'stationDisconnected', reason: 8, ssid: CAFE.ssid, stationJoined: false });
  assert.not.ok(notJoined.model.retries(CAFE), 'a drop the machine did not see joined starts no known retry');
  const unknownConfig = current(CAFE);
  unknownConfig.feed({ type: 'stationDisconnected', reason: 8, ssid: CAFE.ssid, stationJoined: true });
  assert.not.ok(unknownConfig.model.retries(CAFE), 'after a boot the configuration it holds is unknown');
  const newPassphrase = network(CAFE.id, 'cafe', 'new passphrase');
  const held = current(CAFE);
  held.feed({ type: 'configHandedOver', network: CAFE });
  held.feed({ type: 'stationDisconnected', reason: 8, ssid: CAFE.ssid, stationJoined: true });
  assert.not.ok(held.model.retries(newPassphrase), 'it retries the old passphrase');
});

test('retries end: a mode without the station, a new configuration, an initialisation, AP-only after StartSoftAP', () => {
  const ends: FirmwareInput[] = [
    { type: 'stationStopped' },
    { type: 'configHandedOver', network: HOME },
    { type: 'probed', version: null, generation: 'current' },
    { type: 'modeAfterSoftAp', mode: 'softap' },
  ];
  for (const end of ends) {
    const { model, feed } = current(CAFE);
    feed({ type: 'configHandedOver', network: CAFE });
    feed({ type: 'stationDisconnected', reason: 8, ssid: CAFE.ssid, stationJoined: true });
    feed(end);
    assert.not.ok(model.retries(CAFE), end.type);
  }
  const { model, feed } = current(CAFE);
  feed({ type: 'configHandedOver', network: CAFE });
  feed({ type: 'stationDisconnected', reason: 8, ssid: CAFE.ssid, stationJoined: true });
  feed({ type: 'modeAfterSoftAp', mode: 'apsta' });
  assert.ok(model.retries(CAFE), 'beside a connected station the soft AP leaves the retries alone');
});

// ── how a join goes on the current firmware ──────────────────────────────────────────────────

test('join: already on the network with this passphrase is joined', () => {
  const { model, feed } = current(HOME);
  feed({ type: 'configHandedOver', network: HOME });
  assert.equal(model.joinPlan(HOME, HOME.ssid, false), { kind: 'joined' });
});

test('join: on the network with a configuration not known to be this passphrase is handed over again', () => {
  const { model } = current(HOME);
  assert.equal(model.joinPlan(HOME, HOME.ssid, false), { kind: 'handOver', disconnectAfter: true });
});

test("join: the firmware's own retry being watched is waited for, no second ConnectAP", () => {
  const { model, feed } = current(CAFE);
  feed({ type: 'configHandedOver', network: CAFE });
  assert.equal(model.joinPlan(CAFE, null, true), { kind: 'ownRetry' });
});

test('join: connected elsewhere, the ConnectAP is followed by a DisconnectAP; not connected, not', () => {
  const { model } = current(HOME);
  assert.equal(model.joinPlan(CAFE, HOME.ssid, false), { kind: 'handOver', disconnectAfter: true });
  assert.equal(model.joinPlan(CAFE, null, false), { kind: 'handOver', disconnectAfter: false });
});

// ── when a refused password counts ───────────────────────────────────────────────────────────

test('refusals: after a boot (configuration unknown) the second refusal counts', () => {
  const { model } = current();
  assert.is(model.refusalsNeeded(HOME), 2);
});

test('refusals: holding another network, or this one with the same passphrase, the first counts', () => {
  const { model, feed } = current();
  feed({ type: 'configHandedOver', network: CAFE });
  assert.is(model.refusalsNeeded(HOME), 1);
  feed({ type: 'configHandedOver', network: HOME });
  assert.is(model.refusalsNeeded(HOME), 1);
});

test('refusals: holding this network with another passphrase, its first try is the old one: the second counts', () => {
  const { model, feed } = current();
  feed({ type: 'configHandedOver', network: HOME });
  assert.is(model.refusalsNeeded(network(HOME.id, 'home', 'a new passphrase')), 2);
});

// ── why a connect failed ─────────────────────────────────────────────────────────────────────

test("failure: the current firmware's refusal and a link failure say it themselves", () => {
  const { model } = current();
  assert.is(model.failureOf({ kind: 'refused', failure: 'not_found' }), 'not_found');
  assert.is(model.failureOf({ kind: 'link' }), 'timeout');
});

test('failure: a bare "failed" is told by the scan: missing, secured (password), open', () => {
  const { model, now } = current();
  const startedAt = now();
  assert.is(model.failureOf({ kind: 'device', seen: null, hidden: false, startedAt }), 'not_found');
  assert.is(model.failureOf({ kind: 'device', seen: { secured: true }, hidden: false, startedAt }), 'auth');
  assert.is(model.failureOf({ kind: 'device', seen: { secured: false }, hidden: false, startedAt }), 'failed');
  assert.is(
    model.failureOf({ kind: 'device', seen: null, hidden: true, startedAt }),
    'failed',
    'a hidden network is never seen',
  );
});

test('failure: a fresh disconnect reason wins over the scan; a stale one does not', () => {
  const { model, feed, advance, now } = current();
  feed({ type: 'stationDisconnected', reason: 201, ssid: null, stationJoined: false });
  advance(REASON_FRESH_MS);
  const fresh = now();
  assert.is(model.failureOf({ kind: 'device', seen: { secured: true }, hidden: false, startedAt: fresh }), 'not_found');
  assert.is(model.failureOf({ kind: 'device', seen: null, hidden: true, startedAt: fresh }), 'not_found');
  advance(1);
  assert.is(model.failureOf({ kind: 'device', seen: { secured: true }, hidden: false, startedAt: now() }), 'auth');
});

test.run();
