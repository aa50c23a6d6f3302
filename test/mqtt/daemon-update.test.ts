/**
 * Home Assistant's update entity for the coprocessor firmware, end to end: a daemon on the
 * simulated current firmware over a pseudo-terminal, a real mosquitto, a firmware file in the data
 * directory's firmware folder. "Install" is published as Home Assistant publishes it; what the
 * entity shows is rendered from the retained state with the entity's own template (Jinja2).
 */
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { buildFirmwareImage } from '../helpers/firmware-image.js';
import { homeAssistantView } from '../helpers/ha-templates.js';
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

const STATION_MAC = '02:be:0c:5e:77:02';
const ID = STATION_MAC.replace(/:/g, '');
const BASE = `nestbox/${ID}`;
const CONFIG_TOPIC = `homeassistant/device/${ID}/config`;
/** Ten OTAWrite chunks of 4000 bytes: progress has steps to show. */
const IMAGE = buildFirmwareImage({ version: 'FG-1.1.0.0.0', project: 'network_adapter', bytes: 40_000 });

let broker: MosquittoBroker;
let pty: SimOnPty;
let daemon: RunningDaemon;
let ha: Awaited<ReturnType<MosquittoBroker['client']>>;
let recorder: MessageRecorder;
const data = tempDir('nestbox-update-');

test.before(async () => {
  mkdirSync(join(data.path, 'firmware'));
  writeFileSync(join(data.path, 'firmware', 'network_adapter.bin'), IMAGE);
  // Newer than the image: looked at first, skipped.
  writeFileSync(join(data.path, 'firmware', 'notes.bin'), 'not an image');
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(data.path, 'firmware', 'notes.bin'), later, later);
  broker = await startMosquitto();
  pty = await startSimOnPty({ timeScale: 20, framing: 'serial', stationMac: STATION_MAC, firmware: 'current' });
  ha = await broker.client();
  recorder = await recordMessages(ha, [`${BASE}/#`, CONFIG_TOPIC]);
  daemon = await startDaemon({
    dataDir: data.path,
    keepDataDir: true,
    env: {
      NESTBOX_COPROC: `serial:${pty.path}`,
      NESTBOX_COPROC_TIME_SCALE: '20',
      NESTBOX_MQTT_URL: broker.url,
      NESTBOX_MQTT_USERNAME: BOX_USER.username,
      NESTBOX_MQTT_PASSWORD: BOX_USER.password,
      NESTBOX_SETUP_PASSPHRASE: 'update-test-key',
    },
  });
});

test.after(async () => {
  await daemon?.stop();
  await ha?.endAsync();
  await pty?.close();
  await broker?.stop();
  data.remove();
});

const isState = (m: ReceivedMessage) => m.topic === `${BASE}/state`;

async function updateEntity(state: ReceivedMessage): Promise<Record<string, any>> {
  await recorder.wait((m) => m.topic === CONFIG_TOPIC);
  const latest = recorder.messages.filter((m) => m.topic === CONFIG_TOPIC).at(-1)!;
  const view = await homeAssistantView(JSON.parse(latest.text), state.text);
  return view.firmware.state as Record<string, any>;
}

test('the update entity offers the firmware file on the box against the version the device reports', async () => {
  const state = await recorder.wait(
    (m) => {
      if (!isState(m)) return false;
      const { coprocessor } = JSON.parse(m.text);
      return coprocessor.firmware_version !== null && coprocessor.firmware_file !== null;
    },
    { timeoutMs: 15_000 },
  );
  const coprocessor = JSON.parse(state.text).coprocessor;
  assert.equal(coprocessor.firmware_file, {
    version: 'FG-1.1.0.0.0',
    project: 'network_adapter',
    name: 'network_adapter.bin',
    bytes: IMAGE.length,
    newer: true,
  });
  const entity = await updateEntity(state);
  assert.is(entity.installed_version, 'FG-1.0.0.0.0');
  assert.is(entity.latest_version, 'FG-1.1.0.0.0');
  assert.is(entity.in_progress, false);
  await recorder.wait((m) => m.topic === CONFIG_TOPIC && JSON.parse(m.text).dev.sw === 'FG-1.0.0.0.0');
  assert.ok(
    daemon.logs.some((line) => line.msg.startsWith('firmware file skipped') && line.file === 'notes.bin'),
    'a file that is no image is skipped with a log line',
  );
});

test('Install from Home Assistant: the OTA runs with its progress in the entity, then the device runs the new version', async () => {
  const from = recorder.mark();
  await ha.publishAsync(`${BASE}/command/install_firmware`, 'install', { qos: 1 });
  const result = JSON.parse(
    (await recorder.wait((m) => m.topic === `${BASE}/command/install_firmware/result`, { from, timeoutMs: 10_000 }))
      .text,
  );
  assert.equal(result, { ok: true, file: 'network_adapter.bin', version: 'FG-1.1.0.0.0', bytes: IMAGE.length });
  const writing = await recorder.wait(
    (m) =>
      isState(m) &&
      JSON.parse(m.text).coprocessor.ota.phase === 'writing' &&
      JSON.parse(m.text).coprocessor.ota.percent > 0,
    { from, timeoutMs: 15_000 },
  );
  const during = await updateEntity(writing);
  assert.is(during.in_progress, true);
  assert.ok(during.update_percentage > 0 && during.update_percentage <= 100, JSON.stringify(during));
  const done = await recorder.wait(
    (m) =>
      isState(m) &&
      JSON.parse(m.text).coprocessor.firmware_version === 'FG-1.1.0.0.0' &&
      JSON.parse(m.text).coprocessor.ota.phase === 'done',
    { from, timeoutMs: 20_000 },
  );
  const after = await updateEntity(done);
  assert.is(after.installed_version, 'FG-1.1.0.0.0');
  assert.is(after.latest_version, 'FG-1.1.0.0.0', 'nothing left to install');
  assert.is(after.in_progress, false);
  assert.is(JSON.parse(done.text).coprocessor.ota.phase, 'done');
  assert.ok(Buffer.from(readFileSync(pty.sim.device.otaPath)).equals(Buffer.from(IMAGE)), 'the device holds the image');
  // Home Assistant's device card follows: the config is sent again with the new version.
  await recorder.wait((m) => m.topic === CONFIG_TOPIC && JSON.parse(m.text).dev.sw === 'FG-1.1.0.0.0', { from });
});

test('a second Install while one runs is refused in words', async () => {
  const from = recorder.mark();
  await ha.publishAsync(`${BASE}/command/install_firmware`, 'install', { qos: 1 });
  await ha.publishAsync(`${BASE}/command/install_firmware`, 'install', { qos: 1 });
  const results: any[] = [];
  await recorder.wait(
    (m) => {
      if (m.topic === `${BASE}/command/install_firmware/result`) results.push(JSON.parse(m.text));
      return results.length === 2;
    },
    { from, timeoutMs: 10_000 },
  );
  assert.ok(
    results.some((r) => r.ok === false && /running|already/.test(r.error)),
    JSON.stringify(results),
  );
});

test.run();
