import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ConnectivityMachine,
  type Effect,
  type MachineInput,
  type Transition,
} from '../../daemon/connectivity/machine.js';
import { reconnectDelay, type ConnectivityPolicy } from '../../daemon/connectivity/policy.js';

const POLICY: ConnectivityPolicy = {
  heartbeatPeriodS: 3600,
  heartbeatExpectedMs: 3_600_000,
  heartbeatMisses: 3,
  reconnectDelayMs: 1000,
  reconnectMaxMs: 30_000,
  jitter: 0.2,
  fallbackAfterMs: 60_000,
  setupRetryMs: 60_000,
  stableMs: 10_000,
  authFailureLimit: 3,
  stationPollMs: 5000,
  deviceProbeMs: 10_000,
  forcedSetupHoldMs: 600_000,
  leaseRequired: false,
  leaseTimeoutMs: 30_000,
  portalIdleMs: 120_000,
  connectOutcomeMs: 60_000,
};

/** Heartbeats every 10 s, for the device-loss rules (the others use hour-long periods). */
const HB_POLICY: ConnectivityPolicy = { ...POLICY, heartbeatPeriodS: 10, heartbeatExpectedMs: 10_000 };

/** The machine with an injected clock: every input is stamped with `now`, ticks advance it. */
function harness(policy: ConnectivityPolicy = POLICY) {
  const machine = new ConnectivityMachine(policy, () => 0.5);
  let now = 1_000_000;
  const effects: Effect[] = [];
  const transitions: Transition[] = [];
  const send = (input: MachineInput) => {
    const result = machine.dispatch({ ...input, at: now });
    effects.push(...result.effects);
    transitions.push(...result.transitions);
    return result.effects;
  };
  /** Advances the clock to `ms` later, ticking at every deadline on the way (like the manager). */
  const untilNext = () => advance(machine.nextDeadline()! - now);
  const advance = (ms: number) => {
    if (!Number.isFinite(ms)) throw new Error('nothing left to wait for');
    const end = now + ms;
    let guard = 0;
    for (
      let deadline = machine.nextDeadline();
      deadline !== null && deadline <= end;
      deadline = machine.nextDeadline()
    ) {
      if ((guard += 1) > 10_000)
        throw new Error(`the machine keeps asking for ticks at ${deadline}: ${JSON.stringify(machine.snapshot())}`);
      now = Math.max(now, deadline);
      send({ type: 'tick' });
    }
    now = end;
  };
  const take = (type: Effect['type']) => {
    const index = effects.findIndex((effect) => effect.type === type);
    assert.ok(index >= 0, `expected a ${type} effect, got ${JSON.stringify(effects.map((e) => e.type))}`);
    return effects.splice(index, 1)[0] as any;
  };
  const takeEvent = (name: string) => {
    const index = effects.findIndex((effect) => effect.type === 'publish' && effect.event === name);
    assert.ok(index >= 0, `expected a ${name} event, got ${JSON.stringify(effects)}`);
    return effects.splice(index, 1)[0] as Extract<Effect, { type: 'publish' }>;
  };
  /** Answers every connect with a failure until `type` shows up. */
  const failConnectsUntil = (type: Effect['type']) => {
    for (let guard = 0; !effects.some((e) => e.type === type); guard += 1) {
      if (guard > 1000) throw new Error(`no ${type} came`);
      if (effects.some((e) => e.type === 'connect')) {
        take('connect');
        send({
          type: 'connectResult',
          epoch: machine.snapshot().epoch,
          ok: false,
          failure: 'not_found',
          networksLeft: true,
        });
      } else untilNext();
    }
  };
  const none = (type: Effect['type']) =>
    assert.not.ok(
      effects.some((e) => e.type === type),
      `unexpected ${type}`,
    );
  const epoch = () => machine.snapshot().epoch;
  const boot = (hasNetworks: boolean, result: Partial<{ stationUp: boolean; softApUp: boolean }> = {}) => {
    send({ type: 'start', hasNetworks });
    take('initDevice');
    send({ type: 'initResult', epoch: epoch(), ok: true, stationUp: false, softApUp: false, ...result });
  };
  const connectedAfterBoot = () => {
    boot(true);
    take('connect');
    send({ type: 'connectResult', epoch: epoch(), ok: true });
    assert.is(machine.phase, 'connected');
  };
  return {
    machine,
    send,
    advance,
    untilNext,
    takeEvent,
    failConnectsUntil,
    take,
    none,
    effects,
    transitions,
    epoch,
    boot,
    connectedAfterBoot,
    now: () => now,
  };
}

test('start-up re-reads the device before anything else and is "starting" until it answers', () => {
  const h = harness();
  h.send({ type: 'start', hasNetworks: true });
  assert.is(h.machine.phase, 'starting');
  assert.equal(
    h.effects.map((e) => e.type),
    ['initDevice'],
  );
});

test('with no saved network the box goes straight to setup mode', () => {
  const h = harness();
  h.boot(false);
  assert.is(h.machine.phase, 'setup_ap');
  h.take('startSoftAp');
  h.none('connect');
  assert.is(h.transitions.at(-1)!.cause, 'no saved network');
});

test('with a saved network the box connects at once and is "connecting" until the answer', () => {
  const h = harness();
  h.boot(true);
  assert.is(h.machine.phase, 'connecting');
  assert.is(h.take('connect').attempt, 1);
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
  assert.is(h.machine.phase, 'connected');
});

test('every transition is recorded with its cause', () => {
  const h = harness();
  h.connectedAfterBoot();
  assert.equal(
    h.transitions.map((t) => [t.from, t.to]),
    [
      ['starting', 'connecting'],
      ['connecting', 'connected'],
    ],
  );
  assert.is(h.transitions[1].cause, 'connected');
  h.send({ type: 'stationDisconnected', reason: 200 });
  assert.match(h.transitions.at(-1)!.cause, /beacon timeout/);
});

test('a disconnect burst is debounced: one disconnected event, one reconnect after the configured delay', () => {
  const h = harness();
  h.connectedAfterBoot();
  h.send({ type: 'stationDisconnected', reason: 200 });
  h.send({ type: 'stationDisconnected', reason: 200 });
  h.send({ type: 'stationDisconnected', reason: 8 });
  assert.is(h.machine.phase, 'reconnecting');
  assert.is(h.effects.filter((e) => e.type === 'publish').length, 1);
  assert.equal(h.take('publish').payload.reason, 200);
  assert.is(h.machine.nextDeadline(), h.now() + POLICY.reconnectDelayMs);
  h.advance(POLICY.reconnectDelayMs - 1);
  h.none('connect');
  h.advance(1);
  h.take('connect');
});

test('reconnect attempts back off exponentially with jitter up to the ceiling', () => {
  const policy = { ...POLICY, fallbackAfterMs: 10 * 60_000 };
  const waits = [1, 2, 3, 4, 5, 6, 7].map((attempt) => reconnectDelay(policy, attempt, () => 0.5));
  assert.equal(waits, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.is(
    reconnectDelay(policy, 3, () => 0),
    3200,
  );
  assert.is(
    reconnectDelay(policy, 3, () => 1),
    4800,
  );
  const h = harness(policy);
  h.connectedAfterBoot();
  h.send({ type: 'stationDisconnected', reason: 201 });
  const times: number[] = [];
  for (let i = 0; i < 4; i += 1) {
    h.untilNext();
    h.take('connect');
    times.push(h.now());
    h.send({ type: 'connectResult', epoch: h.epoch(), ok: false, failure: 'not_found', networksLeft: true });
  }
  assert.equal(
    times.slice(1).map((t, i) => t - times[i]),
    [2000, 4000, 8000],
  );
});

test('after the grace period without a connection the setup AP starts, counted from the drop', () => {
  const h = harness();
  h.connectedAfterBoot();
  h.send({ type: 'stationDisconnected', reason: 200 });
  const dropAt = h.now();
  for (;;) {
    const next = h.machine.nextDeadline()!;
    if (next >= dropAt + POLICY.fallbackAfterMs) break;
    h.advance(next - h.now());
    if (h.effects.some((e) => e.type === 'connect')) {
      h.take('connect');
      h.send({ type: 'connectResult', epoch: h.epoch(), ok: false, failure: 'not_found', networksLeft: true });
    }
  }
  h.none('startSoftAp');
  h.advance(dropAt + POLICY.fallbackAfterMs - h.now());
  h.take('startSoftAp');
  assert.is(h.machine.phase, 'setup_ap');
  assert.match(h.transitions.at(-1)!.cause, /grace period/);
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.takeEvent('setup_ap_started');
});

test('no automatic attempt that would outlast the grace period: the setup AP starts on time, the attempt right after it', () => {
  const h = harness();
  h.connectedAfterBoot();
  h.send({ type: 'stationDisconnected', reason: 200 });
  const dropAt = h.now();
  const fallbackAt = dropAt + POLICY.fallbackAfterMs;
  // Each failing attempt holds the device 20 s (ConnectAP to a network that is gone).
  const failingAttemptMs = 20_000;
  let learned = false; // the machine knows how long an attempt takes once one has failed
  for (;;) {
    h.untilNext();
    if (h.effects.some((e) => e.type === 'startSoftAp')) break;
    if (h.effects.some((e) => e.type === 'connect')) {
      h.take('connect');
      if (learned)
        assert.ok(
          h.now() + failingAttemptMs <= fallbackAt,
          `an attempt started at +${h.now() - dropAt} ms would still run at the grace period's end`,
        );
      h.advance(failingAttemptMs);
      h.send({ type: 'connectResult', epoch: h.epoch(), ok: false, failure: 'not_found', networksLeft: true });
      learned = true;
    }
  }
  assert.is(h.now(), fallbackAt, 'the setup AP is asked exactly when the grace period ends');
  const order = h.effects.map((e) => e.type).filter((type) => type === 'startSoftAp' || type === 'connect');
  assert.equal(order, ['startSoftAp', 'connect']);
});

test('the grace period at start-up counts from start-up when networks are saved (boot race)', () => {
  const h = harness();
  h.boot(true);
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: false, failure: 'timeout', networksLeft: true });
  h.advance(POLICY.fallbackAfterMs - 1);
  h.none('startSoftAp');
  h.advance(1);
  h.take('startSoftAp');
});

test('in setup mode the saved networks are retried every setup-retry interval (APSTA)', () => {
  const h = harness();
  h.boot(true);
  h.failConnectsUntil('startSoftAp');
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'softApStations', count: 0 });
  h.failConnectsUntil('connect');
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: false, failure: 'not_found', networksLeft: true });
  const failedAt = h.now();
  h.advance(POLICY.setupRetryMs - 1);
  h.none('connect');
  h.advance(1);
  h.take('connect');
  assert.is(h.now() - failedAt, POLICY.setupRetryMs);
  h.none('stopSoftAp');
});

test('a phone merely on the setup AP does not hold automatic retries', () => {
  const h = harness();
  h.boot(false);
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'softApStations', count: 2 });
  h.send({ type: 'networksChanged', hasNetworks: true, tryNow: false });
  h.take('connect');
});

test('a person using the portal pauses automatic retries for two minutes after the last request; what they submit is tried at once', () => {
  const h = harness();
  h.boot(false);
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'softApStations', count: 1 });
  h.send({ type: 'portalUsed' });
  h.send({ type: 'networksChanged', hasNetworks: true, tryNow: false });
  h.none('connect');
  h.advance(POLICY.portalIdleMs - 1);
  h.send({ type: 'portalUsed' });
  h.advance(POLICY.setupRetryMs);
  h.none('connect');
  h.send({ type: 'networksChanged', hasNetworks: true, tryNow: true });
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: false, failure: 'auth', networksLeft: true });
  h.advance(POLICY.portalIdleMs);
  h.take('connect');
  h.none('stopSoftAp');
});

test('the reconnect of a box that was online is never held by the portal in use', () => {
  const h = harness();
  h.connectedAfterBoot();
  h.send({ type: 'stationDisconnected', reason: 200 });
  h.failConnectsUntil('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'softApStations', count: 1 });
  h.send({ type: 'portalUsed' });
  const usedAt = h.now();
  h.failConnectsUntil('connect');
  h.take('connect');
  assert.ok(h.now() - usedAt <= POLICY.setupRetryMs, `retried ${h.now() - usedAt} ms after the portal was used`);
});

test("a network submitted while another attempt runs is tried next, and that attempt's failure is not shown as its answer", () => {
  const h = harness();
  h.boot(true);
  const running = h.take('connect');
  h.send({ type: 'networksChanged', hasNetworks: true, tryNow: true });
  h.none('connect');
  h.send({ type: 'connectResult', epoch: running.epoch, ok: false, failure: 'not_found', networksLeft: true });
  assert.is(h.machine.snapshot().failure, null);
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: false, failure: 'auth', networksLeft: true });
  assert.is(h.machine.snapshot().failure, 'auth');
});

/** In setup mode with a phone on the AP, a person submits a network from the portal and the box joins it. */
function onlineFromThePortal(h: ReturnType<typeof harness>): void {
  h.boot(false);
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'softApStations', count: 1 });
  h.send({ type: 'portalUsed' });
  h.send({ type: 'networksChanged', hasNetworks: true, tryNow: true });
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
  assert.is(h.machine.phase, 'connected');
}

test('online and stable, the setup AP closes once the portal had no request for two minutes, though the phone stays', () => {
  const h = harness();
  onlineFromThePortal(h);
  const lastRequest = h.now();
  h.advance(POLICY.portalIdleMs - 1);
  h.none('stopSoftAp');
  h.advance(1);
  h.take('stopSoftAp');
  assert.is(h.now() - lastRequest, POLICY.portalIdleMs);
  assert.is(h.machine.snapshot().phones, 1, 'the phone is still associated');
  assert.is(h.machine.snapshot().setupWanted, false);
  h.send({ type: 'softApResult', epoch: h.epoch(), started: false, ok: true });
  h.takeEvent('setup_ap_stopped');
});

test('a person using the portal holds the setup AP: each request starts the two minutes again', () => {
  const h = harness();
  onlineFromThePortal(h);
  for (let i = 0; i < 5; i += 1) {
    h.advance(POLICY.portalIdleMs - 1000);
    h.send({ type: 'portalUsed' });
  }
  h.none('stopSoftAp');
  assert.is(h.machine.snapshot().setupWanted, true);
  h.advance(POLICY.portalIdleMs - 1);
  h.none('stopSoftAp');
  h.advance(1);
  h.take('stopSoftAp');
});

test('a phone that never used the portal does not hold the setup AP past the stable time', () => {
  const h = harness();
  h.boot(false);
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'softApStations', count: 2 });
  h.send({ type: 'networksChanged', hasNetworks: true, tryNow: false });
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
  h.advance(POLICY.stableMs - 1);
  h.none('stopSoftAp');
  h.advance(1);
  h.take('stopSoftAp');
});

test('portal requests from before the box was online hold the AP no longer than two minutes after them', () => {
  const h = harness();
  h.boot(false);
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'softApStations', count: 1 });
  h.send({ type: 'portalUsed' });
  h.advance(POLICY.portalIdleMs + 5000);
  h.send({ type: 'networksChanged', hasNetworks: true, tryNow: true });
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
  // The last request is over two minutes old: the stable time alone decides.
  h.advance(POLICY.stableMs - 1);
  h.none('stopSoftAp');
  h.advance(1);
  h.take('stopSoftAp');
});

test('once the phone has left, the stable time alone decides, recent portal requests or not', () => {
  const h = harness();
  onlineFromThePortal(h);
  h.advance(POLICY.stableMs * 2);
  h.none('stopSoftAp');
  h.send({ type: 'softApStations', count: 0 });
  h.advance(0);
  h.take('stopSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: false, ok: true });
  h.takeEvent('setup_ap_stopped');
});

test('the portal in use does not close the setup AP before the connection was stable', () => {
  const h = harness({ ...POLICY, stableMs: POLICY.portalIdleMs * 2 });
  onlineFromThePortal(h);
  h.advance(POLICY.portalIdleMs);
  h.none('stopSoftAp');
  h.advance(POLICY.portalIdleMs - 1);
  h.none('stopSoftAp');
  h.advance(1);
  h.take('stopSoftAp');
});

test('setup mode asked by the owner holds the AP for its whole hold, the portal idle or not', () => {
  const h = harness();
  h.connectedAfterBoot();
  h.send({ type: 'enterSetupMode' });
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'softApStations', count: 1 });
  const asked = h.now();
  h.advance(POLICY.forcedSetupHoldMs - 1);
  h.none('stopSoftAp');
  h.advance(1);
  // The hold is over, and the portal was never used: the phone does not keep it open.
  h.take('stopSoftAp');
  assert.is(h.now() - asked, POLICY.forcedSetupHoldMs);
});

test('a box that was not online keeps its setup AP however idle the portal is', () => {
  const h = harness();
  h.boot(false);
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'softApStations', count: 1 });
  h.send({ type: 'portalUsed' });
  h.advance(POLICY.portalIdleMs * 10);
  h.none('stopSoftAp');
  assert.is(h.machine.phase, 'setup_ap');
});

test('hysteresis: a network that comes and goes does not flap the setup AP', () => {
  const h = harness();
  h.boot(true);
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: false, failure: 'not_found', networksLeft: true });
  h.advance(POLICY.fallbackAfterMs);
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'softApStations', count: 0 });
  let starts = 1,
    stops = 0;
  // The network is back for less than the stable time, then gone again, five times over.
  for (let round = 0; round < 5; round += 1) {
    h.untilNext();
    while (!h.effects.some((e) => e.type === 'connect')) h.untilNext();
    h.take('connect');
    h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
    h.advance(POLICY.stableMs / 2);
    h.send({ type: 'stationDisconnected', reason: 200 });
    starts += h.effects.filter((e) => e.type === 'startSoftAp').length;
    stops += h.effects.filter((e) => e.type === 'stopSoftAp').length;
    h.effects.length = 0;
  }
  assert.is(starts, 1);
  assert.is(stops, 0);
  assert.is(h.machine.phase, 'setup_ap');
  // Back for good: the AP stops once, after the stable time.
  while (!h.effects.some((e) => e.type === 'connect')) h.untilNext();
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
  h.advance(POLICY.stableMs - 1);
  h.none('stopSoftAp');
  h.advance(1);
  h.take('stopSoftAp');
});

test('when every saved password was refused the box falls back at once instead of retrying forever', () => {
  const h = harness();
  h.boot(true);
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: false, failure: 'auth', networksLeft: false });
  h.take('startSoftAp');
  assert.is(h.machine.phase, 'setup_ap');
  assert.is(h.machine.snapshot().failure, 'auth');
  h.advance(POLICY.setupRetryMs * 3);
  h.none('connect');
});

test('missing heartbeats mark the device lost after misses × period from the last one', () => {
  const h = harness(HB_POLICY);
  h.connectedAfterBoot();
  h.advance(5000);
  h.send({ type: 'heartbeat' });
  const last = h.now();
  h.advance(30_000 - 1);
  assert.is.not(h.machine.phase, 'device_lost');
  h.advance(1);
  assert.is(h.machine.phase, 'device_lost');
  assert.is(h.now() - last, HB_POLICY.heartbeatExpectedMs * HB_POLICY.heartbeatMisses);
  assert.match(h.transitions.at(-1)!.cause, /no heartbeat/);
});

test('a lost device is asked again; when it answers it is re-initialised and reconnects', () => {
  const h = harness(HB_POLICY);
  h.connectedAfterBoot();
  h.send({ type: 'link', up: false, reason: 'unplugged' });
  assert.is(h.machine.phase, 'device_lost');
  const first = h.take('initDevice');
  h.send({ type: 'initResult', epoch: first.epoch, ok: false, error: 'timeout' });
  assert.is(h.machine.phase, 'device_lost');
  h.advance(POLICY.deviceProbeMs);
  const probe = h.take('initDevice');
  h.send({ type: 'initResult', epoch: probe.epoch, ok: true, stationUp: false, softApUp: false });
  assert.is(h.machine.phase, 'reconnecting');
  h.take('connect');
});

test('heartbeats from a lost device trigger a re-initialisation at once', () => {
  const h = harness(HB_POLICY);
  h.connectedAfterBoot();
  h.advance(30_000);
  assert.is(h.machine.phase, 'device_lost');
  const probe = h.take('initDevice');
  h.send({ type: 'initResult', epoch: probe.epoch, ok: false });
  h.send({ type: 'heartbeat' });
  const init = h.take('initDevice');
  h.send({ type: 'initResult', epoch: init.epoch, ok: true, stationUp: true, softApUp: false });
  assert.is(h.machine.phase, 'connected');
});

test('answers that arrive after a device reset are ignored (epochs)', () => {
  const h = harness();
  h.boot(true);
  const connect = h.take('connect');
  h.send({ type: 'devInit' });
  h.send({ type: 'connectResult', epoch: connect.epoch, ok: true });
  assert.is.not(h.machine.phase, 'connected');
});

test('a devInit re-applies the whole configuration, publishes coprocessor_reset and restores setup mode', () => {
  const h = harness();
  h.boot(false);
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.effects.length = 0;
  h.send({ type: 'devInit' });
  assert.equal(h.take('publish').event, 'coprocessor_reset');
  const init = h.take('initDevice');
  h.send({ type: 'initResult', epoch: init.epoch, ok: true, stationUp: false, softApUp: false });
  h.take('startSoftAp');
  assert.is(h.machine.phase, 'setup_ap');
});

test('the owner can enter setup mode while connected; the AP is held and the station stays up', () => {
  const h = harness();
  h.connectedAfterBoot();
  h.send({ type: 'enterSetupMode' });
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  assert.is(h.machine.phase, 'connected');
  h.advance(POLICY.stableMs * 2);
  h.none('stopSoftAp');
  h.advance(POLICY.forcedSetupHoldMs);
  h.take('stopSoftAp');
});

test('a soft AP that fails to start is retried after the setup-retry interval', () => {
  const h = harness();
  h.boot(false);
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: false, error: 'device said no' });
  h.none('startSoftAp');
  assert.is(h.machine.phase, 'setup_ap');
  h.advance(POLICY.setupRetryMs);
  h.take('startSoftAp');
});

test.run();

/** The machine with the network layer on: association is not being online. */
const LEASE_POLICY: ConnectivityPolicy = { ...POLICY, leaseRequired: true };

test('network layer on: associated is "connecting" until the lease, then "connected"', () => {
  const h = harness(LEASE_POLICY);
  h.boot(true);
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
  assert.is(h.machine.phase, 'connecting');
  assert.is(h.machine.snapshot().station, 'associated');
  h.send({ type: 'lease', up: true });
  assert.is(h.machine.phase, 'connected');
  assert.is(h.transitions.at(-1)!.cause, 'address leased');
});

test('network layer on: a lost lease is a disconnect: the association is dropped and tried again', () => {
  const h = harness(LEASE_POLICY);
  h.boot(true);
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
  h.send({ type: 'lease', up: true });
  h.send({ type: 'lease', up: false, reason: 'renewal refused' });
  assert.is(h.machine.phase, 'reconnecting');
  h.take('disconnect');
  assert.match(h.takeEvent('disconnected').payload.reason_text as string, /lost its address \(renewal refused\)/);
  h.advance(POLICY.reconnectDelayMs);
  h.take('connect');
});

test('network layer on: no lease within the timeout drops the association, and the setup AP still comes after the grace period', () => {
  const h = harness(LEASE_POLICY);
  h.boot(true);
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
  h.advance(LEASE_POLICY.leaseTimeoutMs - 1);
  h.none('disconnect');
  h.advance(1);
  h.take('disconnect');
  assert.is(h.machine.snapshot().failure, 'no_address');
  assert.is(h.machine.phase, 'connecting');
  // Joins that never give an address still end in the setup AP when the grace period is over.
  for (let guard = 0; !h.effects.some((e) => e.type === 'startSoftAp'); guard += 1) {
    assert.ok(guard < 100, 'the setup AP never came');
    if (h.effects.some((e) => e.type === 'connect')) {
      h.take('connect');
      h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
    } else h.untilNext();
  }
  assert.is(h.machine.phase, 'setup_ap');
  assert.ok(h.now() - 1_000_000 >= POLICY.fallbackAfterMs);
});

test('network layer on: a lease after the setup AP came makes the box connected, and the AP stops once stable', () => {
  const h = harness({ ...LEASE_POLICY, leaseTimeoutMs: 10 * 60_000 });
  h.boot(true);
  h.take('connect');
  h.send({ type: 'connectResult', epoch: h.epoch(), ok: true });
  h.advance(POLICY.fallbackAfterMs);
  h.take('startSoftAp');
  h.send({ type: 'softApResult', epoch: h.epoch(), started: true, ok: true });
  h.send({ type: 'lease', up: true });
  assert.is(h.machine.phase, 'connected');
  h.advance(POLICY.stableMs);
  h.take('stopSoftAp');
});

test('network layer on: a lease event without an association changes nothing', () => {
  const h = harness(LEASE_POLICY);
  h.boot(true);
  h.send({ type: 'lease', up: true });
  assert.is(h.machine.phase, 'connecting');
  h.send({ type: 'lease', up: false });
  h.none('disconnect');
});
