/**
 * Chip recovery without a person, on the daemon as a box runs it: the control device is `esps:`
 * (the simulator on a pseudo-terminal in the driver's framing, current firmware), and the module
 * reload is a stand-in command (NESTBOX_COPROC_RESET_COMMAND): a script that records each call,
 * on which the test power-cycles the simulated chip through its controls, as the reset line does.
 * Time runs 40 times faster: lost 60 s → reset after 1.5 s; the 10-minute window is 15 s.
 * What home automation sees is read on a real mosquitto; /healthz shows the release check.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import {
  BOX_USER,
  recordMessages,
  startMosquitto,
  type MessageRecorder,
  type MosquittoBroker,
  type ReceivedMessage,
} from '../helpers/mosquitto-broker.js';
import { tempDir } from '../helpers/paths.js';
import { startSimOnPty, type SimOnPty } from '../helpers/pty.js';

const TIME_SCALE = 40;
const RESET_AFTER_S = 60;
const WINDOW_MS = (10 * 60_000) / TIME_SCALE;
const STATION_MAC = '02:be:0c:5e:77:21';
const BASE = `nestbox/${STATION_MAC.replace(/:/g, '')}`;

let broker: MosquittoBroker;
let pty: SimOnPty;
let daemon: RunningDaemon;
let recorder: MessageRecorder;
let ha: Awaited<ReturnType<MosquittoBroker['client']>>;
let dir: ReturnType<typeof tempDir>;
let calls: string;
let watcher: NodeJS.Timeout;
let resetsSeen = 0;
/**
 * When the daemon began the first reset (its state's `last_reset.at`, ms since the epoch): the
 * window runs from there. The event is published once the reset command is done, which under load
 * can take a while longer for one reset than for the other.
 */
let firstResetAt = 0;

test.before(async () => {
  dir = tempDir('nestbox-chip-reset-');
  calls = join(dir.path, 'reset-calls');
  writeFileSync(calls, '');
  const script = join(dir.path, 'reload-module');
  writeFileSync(script, `#!/bin/sh\necho "reload $*" >> '${calls}'\n`);
  chmodSync(script, 0o755);
  broker = await startMosquitto();
  pty = await startSimOnPty({ timeScale: TIME_SCALE, framing: 'esps', firmware: 'current', stationMac: STATION_MAC });
  // The stand-in's effect on the chip: each recorded call power-cycles the simulated one.
  watcher = setInterval(() => {
    const lines = readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;
    for (; resetsSeen < lines; resetsSeen++) pty.sim.reset();
  }, 20);
  ha = await broker.client();
  recorder = await recordMessages(ha, `${BASE}/#`);
  daemon = await startDaemon({
    env: {
      NESTBOX_COPROC: `esps:${pty.path}`,
      NESTBOX_COPROC_TIME_SCALE: String(TIME_SCALE),
      NESTBOX_COPROC_RESET_AFTER_S: String(RESET_AFTER_S),
      NESTBOX_COPROC_RESET_COMMAND: `${script} esp-hosted.service`,
      NESTBOX_ESP_HOSTED_RELEASE: 'FG-1.0.0.0.0',
      NESTBOX_MQTT_URL: broker.url,
      NESTBOX_MQTT_USERNAME: BOX_USER.username,
      NESTBOX_MQTT_PASSWORD: BOX_USER.password,
    },
  });
});

test.after(async () => {
  clearInterval(watcher);
  await daemon?.stop();
  await ha?.endAsync();
  await pty?.close();
  await broker?.stop();
  dir?.remove();
});

const state = (check: (s: any) => boolean) => (m: ReceivedMessage) =>
  m.topic === `${BASE}/state` && check(JSON.parse(m.text));
const resetCalls = () => readFileSync(calls, 'utf8').split('\n').filter(Boolean);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('the firmware of the driver release: /healthz firmware_release ok, the state says match', async () => {
  await recorder.wait(
    state((s) => s.coprocessor.release.status === 'match'),
    { timeoutMs: 15_000 },
  );
  const health = (await daemon.json('/healthz')).body;
  assert.equal(health.components.firmware_release, { status: 'ok', driver: 'FG-1.0.0.0.0', firmware: 'FG-1.0.0.0.0' });
});

test('a chip that stops answering is reset once through the reload command, with the device closed, and comes back', async () => {
  await recorder.wait(
    state((s) => s.coprocessor.responding),
    { timeoutMs: 15_000 },
  );
  const from = recorder.mark();
  pty.sim.freeze(true);
  const lost = await recorder.wait(
    state((s) => s.connectivity === 'device_lost'),
    { from, timeoutMs: 10_000 },
  );
  const event = await recorder.wait((m) => m.topic === `${BASE}/event/coprocessor_reset`, { from, timeoutMs: 10_000 });
  const lostFor = event.at - lost.at;
  assert.ok(lostFor >= (RESET_AFTER_S * 1000) / TIME_SCALE - 250, `reset after ${lostFor} ms of loss`);
  const payload = JSON.parse(event.text);
  assert.equal([payload.by, payload.method, payload.ok, payload.resets], ['daemon', 'module_reload', true, 1]);
  assert.match(payload.reason, /had not answered for \d+ s/);
  assert.equal(resetCalls(), ['reload esp-hosted.service']);
  // The device was closed for the command: the link went down, then up again.
  const closed = daemon.logs.find((line) => line.msg === 'coprocessor device closed');
  assert.match(String(closed?.reason), /chip reset/);
  const back = await recorder.wait(
    state((s) => s.coprocessor.responding && s.connectivity !== 'device_lost'),
    { from: recorder.mark() - 1, timeoutMs: 10_000 },
  );
  const shown = JSON.parse(back.text).coprocessor;
  assert.is(shown.resets, 1);
  firstResetAt = Date.parse(shown.last_reset.at);
  assert.equal([shown.last_reset.method, shown.last_reset.ok, shown.last_reset.error], ['module_reload', true, null]);
  assert.ok(
    daemon.logs.some(
      (line) => line.msg === 'resetting the coprocessor' && /had not answered/.test(String(line.reason)),
    ),
  );
});

test('lost again at once: no second reset within the 10-minute window; the next one only after it', async () => {
  const from = recorder.mark();
  pty.sim.freeze(true);
  await recorder.wait(
    state((s) => s.connectivity === 'device_lost'),
    { from, timeoutMs: 10_000 },
  );
  // Well past the loss threshold, still inside the window: nothing.
  await sleep(((RESET_AFTER_S * 1000) / TIME_SCALE) * 3);
  assert.is(resetCalls().length, 1, 'not twice within the window');
  const second = await recorder.wait((m) => m.topic === `${BASE}/event/coprocessor_reset`, {
    from,
    timeoutMs: WINDOW_MS + 5000,
  });
  assert.is(JSON.parse(second.text).resets, 2);
  assert.is(resetCalls().length, 2);
  const back = await recorder.wait(
    state((s) => s.coprocessor.responding && s.coprocessor.resets === 2),
    { from, timeoutMs: 10_000 },
  );
  // The daemon's own times: how late each message reached the broker and the test does not count.
  const apart = Date.parse(JSON.parse(back.text).coprocessor.last_reset.at) - firstResetAt;
  assert.ok(apart >= WINDOW_MS - 250, `the second reset began ${apart} ms after the first`);
});

test.run();
