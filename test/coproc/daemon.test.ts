/**
 * The link inside the daemon: health component `coprocessor` ok when the device answers, degraded
 * with a plain reason when the device cannot be opened or does not answer. One daemon per case,
 * started together.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startAll, startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { startSimOnPty, type SimOnPty } from '../helpers/pty.js';

let simulated: RunningDaemon;
let missing: RunningDaemon;
let silent: RunningDaemon;
let onPty: RunningDaemon;
let pty: SimOnPty;

test.before(async () => {
  pty = await startSimOnPty({ framing: 'serial', timeScale: 20 });
  const together = { startTimeoutMs: 60_000 }; // four start at once on two cores
  [simulated, missing, silent, onPty] = (await startAll([
    startDaemon(together),
    startDaemon({ ...together, env: { NESTBOX_COPROC: 'serial:/dev/nestbox-no-such-tty?baud=115200' } }),
    startDaemon({ ...together, env: { NESTBOX_SIM_SCENARIO: 'unresponsive' } }),
    startDaemon({ ...together, env: { NESTBOX_COPROC: `serial:${pty.path}?baud=921600` } }),
  ])) as [RunningDaemon, RunningDaemon, RunningDaemon, RunningDaemon];
});

test.after(async () => {
  await Promise.all([simulated, missing, silent, onPty].map((daemon) => daemon?.stop()));
  await pty?.close();
});

async function coprocessorHealth(daemon: RunningDaemon, until: (status: string) => boolean, timeoutMs = 6000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await daemon.json('/healthz');
    const component = body.components.coprocessor;
    if (until(component?.status) || Date.now() > deadline) return { overall: body.status, ...component };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('with the embedded simulator the coprocessor component is ok once the device has announced itself', async () => {
  const health = await coprocessorHealth(simulated, (status) => status === 'ok');
  assert.equal(health, { overall: 'ok', status: 'ok' });
  await simulated.waitForLog((line) => line.msg === 'coprocessor (re)started' && line.component === 'coproc');
});

test('a serial device that does not exist: degraded with a plain reason, the daemon still serves, and it keeps retrying', async () => {
  const health = await coprocessorHealth(missing, (status) => status === 'degraded');
  assert.is(health.status, 'degraded');
  assert.is(health.overall, 'degraded');
  assert.match(health.detail, /cannot open serial:\/dev\/nestbox-no-such-tty/);
  await missing.waitForLog((line) => line.msg === 'coprocessor device cannot be opened; retrying');
});

test('a device that never answers: degraded, "the coprocessor does not answer"', async () => {
  const health = await coprocessorHealth(silent, (status) => status === 'degraded');
  assert.equal(health, { overall: 'degraded', status: 'degraded', detail: 'the coprocessor does not answer' });
});

test('a device on a serial line that is unplugged and plugged back: degraded "link down", then ok again', async () => {
  assert.is((await coprocessorHealth(onPty, (status) => status === 'ok')).status, 'ok');
  await pty.unplug();
  const down = await coprocessorHealth(onPty, (status) => status === 'degraded');
  assert.is(down.status, 'degraded');
  assert.match(down.detail, /^link down/);
  await pty.replug();
  assert.is((await coprocessorHealth(onPty, (status) => status === 'ok')).status, 'ok');
  await onPty.waitForLog((line) => line.msg === 'coprocessor link up' && String(line.transport).startsWith('serial:'));
});

test.run();
