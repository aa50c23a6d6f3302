/**
 * The chip recovery policy on a stepped clock: reset after the loss threshold, at most once per
 * window however often the chip is lost, a loss that ends in time resets nothing, a failed reset
 * is recorded but not counted, and a link without a reset line only logs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChipResetter } from '../../daemon/coproc/chip-reset.js';
import { ChipRecovery } from '../../daemon/connectivity/chip-recovery.js';
import { CoprocessorRecord } from '../../daemon/connectivity/coprocessor-record.js';
import type { ConnectivityClock } from '../../daemon/connectivity/clock.js';
import { DeviceState, initialDeviceState, type DeviceEvent } from '../../daemon/device/state.js';
import { Logger } from '../../daemon/log/logger.js';

const AFTER = 120_000;
const WINDOW = 600_000;

class SteppedClock implements ConnectivityClock {
  time = 1_000_000;
  private timers: Array<{ at: number; fn: () => void }> = [];
  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    const timer = { at: this.time + ms, fn };
    this.timers.push(timer);
    return timer;
  };
  clearTimeout = (handle: unknown) => {
    this.timers = this.timers.filter((timer) => timer !== handle);
  };
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const next = this.timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.time = next.at;
      next.fn();
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.time = end;
  }
}

function rig(resetter: ChipResetter | null) {
  const clock = new SteppedClock();
  const device = new DeviceState(initialDeviceState('test', 'esps:/dev/esps0'));
  const events: DeviceEvent[] = [];
  device.on('event', (event) => events.push(event));
  const logs: Array<Record<string, unknown>> = [];
  const log = new Logger('debug', {}, (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
  const recovery = new ChipRecovery({
    resetter,
    afterMs: AFTER,
    windowMs: WINDOW,
    coprocessor: new CoprocessorRecord(device),
    log,
    clock,
  });
  return { clock, device, events, logs, recovery };
}

function countingResetter(outcome: () => Promise<void> = () => Promise.resolve()) {
  const calls: string[] = [];
  const resetter: ChipResetter = {
    method: 'module_reload',
    reset: (reason) => {
      calls.push(reason);
      return outcome();
    },
  };
  return { calls, resetter };
}

test('lost past the threshold: one reset, counted, published with its reason; found again: nothing more', async () => {
  const { calls, resetter } = countingResetter();
  const { clock, device, events, recovery } = rig(resetter);
  recovery.observe(true);
  await clock.advance(AFTER - 1);
  assert.is(calls.length, 0);
  await clock.advance(1);
  assert.equal(calls, ['the coprocessor had not answered for 120 s']);
  recovery.observe(false);
  await clock.advance(WINDOW * 2);
  assert.is(calls.length, 1);
  const { resets, last_reset: last } = device.get().coprocessor;
  assert.is(resets, 1);
  assert.equal(
    { ...last, at: undefined },
    {
      at: undefined,
      reason: 'the coprocessor had not answered for 120 s',
      method: 'module_reload',
      ok: true,
      error: null,
    },
  );
  assert.equal(
    events.map((event) => [event.name, event.payload.by, event.payload.resets]),
    [['coprocessor_reset', 'daemon', 1]],
  );
});

test('lost again right after a reset: the next one waits for the window, however the loss flaps', async () => {
  const { calls, resetter } = countingResetter();
  const { clock, recovery } = rig(resetter);
  recovery.observe(true);
  await clock.advance(AFTER);
  assert.is(calls.length, 1);
  for (let i = 0; i < 4; i++) {
    recovery.observe(false);
    await clock.advance(1000);
    recovery.observe(true);
    await clock.advance(AFTER);
  }
  assert.is(calls.length, 1, 'not twice within the window');
  await clock.advance(WINDOW);
  assert.is(calls.length, 2);
});

test('a loss that ends before the threshold resets nothing', async () => {
  const { calls, resetter } = countingResetter();
  const { clock, recovery } = rig(resetter);
  recovery.observe(true);
  await clock.advance(AFTER - 1000);
  recovery.observe(false);
  await clock.advance(AFTER * 3);
  assert.is(calls.length, 0);
});

test('a reset command that fails is recorded with its error, not counted, and logged', async () => {
  const { resetter } = countingResetter(() =>
    Promise.reject(new Error('systemctl reload esp-hosted.service exited with status 4')),
  );
  const { clock, device, events, logs, recovery } = rig(resetter);
  recovery.observe(true);
  await clock.advance(AFTER);
  const { resets, last_reset: last } = device.get().coprocessor;
  assert.is(resets, 0);
  assert.is(last?.ok, false);
  assert.match(String(last?.error), /status 4/);
  assert.is(events[0].payload.ok, false);
  assert.ok(logs.some((line) => line.msg === 'coprocessor reset failed' && /status 4/.test(String(line.error))));
});

test('no reset line (serial:): the long loss is logged once, nothing else', async () => {
  const { clock, device, events, logs, recovery } = rig(null);
  recovery.observe(true);
  await clock.advance(AFTER * 5);
  assert.is(device.get().coprocessor.resets, 0);
  assert.equal(events, []);
  assert.is(logs.filter((line) => /no reset line/.test(String(line.msg))).length, 1);
});

test.run();
