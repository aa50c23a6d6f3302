/**
 * A coprocessor firmware update through the owner's API, end to end below the token check: a real
 * HTTP server with the connectivity routes, the connectivity subsystem over the real client and
 * the embedded simulator (its OTA partition a scratch file), and the MQTT bridge on a real
 * mosquitto. The update ends only with the device's reboot: DeviceState OTA `done`, the image on
 * the device, `ota_progress` and `coprocessor_reset` on the broker. (The same upload against the
 * whole daemon needs an owner token from the social instance.)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpServer } from '../../daemon/http/server.js';
import { silentLogger } from '../../daemon/log/logger.js';
import { MqttBridge } from '../../daemon/mqtt/bridge.js';
import { settingsMemory } from '../../daemon/mqtt/memory.js';
import { BOX_USER, recordMessages, startMosquitto, type MosquittoBroker } from '../helpers/mosquitto-broker.js';
import { startSimConnectivity, type SimConnectivity } from '../helpers/sim-connectivity.js';
import { serveRigWeb } from './web-fixture.js';

const DEVICE_ID = '240ac4123456'; // the embedded simulator's station MAC

let rig: SimConnectivity;
let http: HttpServer;
let url: string;
let broker: MosquittoBroker;
let bridge: MqttBridge;

test.before(async () => {
  rig = await startSimConnectivity({ env: { NESTBOX_COPROC_TIME_SCALE: '50', NESTBOX_STABLE_S: '0' } });
  await rig.until((state) => state.connectivity === 'connected', 'connected');
  ({ http, url } = await serveRigWeb(rig));
  broker = await startMosquitto();
  let online!: () => void;
  const connected = new Promise<void>((resolve) => {
    online = resolve;
  });
  bridge = new MqttBridge({
    device: rig.device,
    commands: rig.connectivity.commands,
    broker: {
      url: broker.url,
      username: BOX_USER.username,
      password: BOX_USER.password,
      protocolVersion: 4,
      clientId: null,
      caFile: null,
      certFile: null,
      keyFile: null,
    },
    prefix: 'nestbox',
    discoveryPrefix: null,
    memory: settingsMemory(rig.db),
    log: silentLogger,
    version: 'test',
    refreshSchedule: 'off',
    reportHealth: (health) => {
      if (health.status === 'ok') online();
    },
  });
  await bridge.start();
  await connected;
});

test.after(async () => {
  await bridge?.stop();
  await broker?.stop();
  await http?.stop(100);
  await rig?.close();
});

function upload(image: Uint8Array, token = 'owner-token') {
  return fetch(`${url}/api/nestbox/v1/firmware`, {
    method: 'POST',
    body: image,
    headers: { 'Content-Type': 'application/octet-stream', Authorization: `Bearer ${token}` },
  });
}

test('an uploaded image is written to the device in 4000-byte chunks; it reboots, and only then is the update done', async () => {
  const watcher = await broker.client();
  const recorder = await recordMessages(watcher, `nestbox/${DEVICE_ID}/event/#`);
  const image = new Uint8Array(10_500).map((_, i) => (i * 7) & 0xff);
  image[0] = 0xe9;
  const writes: string[] = [];
  rig.sim.device.on('request', (name) => {
    if (name.startsWith('ota')) writes.push(name);
  });

  const answer = await upload(image);
  assert.is(answer.status, 202);
  assert.is(((await answer.json()) as { bytes: number }).bytes, image.length);
  await rig.until((state) => state.coprocessor.ota.phase === 'done', 'OTA done after the reboot');

  assert.equal(writes, ['otaBegin', 'otaWrite', 'otaWrite', 'otaWrite', 'otaEnd']);
  assert.ok(
    Buffer.from(readFileSync(join(rig.config.dataDir, 'ota.bin'))).equals(Buffer.from(image)),
    'the device holds the image',
  );
  const { ota } = rig.device.get().coprocessor;
  assert.equal({ ...ota }, { phase: 'done', bytes: image.length, total: image.length, percent: 100, error: null });
  // The reboot came before `done`: the device announced itself and was set up again.
  const progress = await recorder.wait(
    (m) => m.topic.endsWith('/event/ota_progress') && JSON.parse(m.text).percent === 100,
  );
  assert.ok(progress);
  const percents = recorder.messages
    .filter((m) => m.topic.endsWith('/event/ota_progress'))
    .map((m) => JSON.parse(m.text).percent);
  assert.equal(percents, [0, 38, 76, 100]);
  await recorder.wait((m) => m.topic.endsWith('/event/coprocessor_reset'));
  await rig.until((state) => state.connectivity === 'connected', 'connected again after the reboot');
  await watcher.endAsync();
});

test('a second upload while one runs is refused (409); a reader token cannot upload (403)', async () => {
  const image = new Uint8Array(9000).fill(1);
  image[0] = 0xe9;
  assert.is((await upload(image, 'owner-read-token')).status, 403);
  // Both at once, as two owners' phones would: sent one after the other, a fast machine could finish
  // the first (a few small writes to the simulated chip) before the second arrives.
  const answers = await Promise.all([upload(image), upload(image)]);
  assert.equal(answers.map((answer) => answer.status).sort(), [202, 409]);
  const refused = answers.find((answer) => answer.status === 409)!;
  assert.match(((await refused.json()) as { error: string }).error, /already running/);
  await rig.until(
    (state) => state.coprocessor.ota.phase === 'done' && state.connectivity === 'connected',
    'second update done',
  );
});

test.run();
