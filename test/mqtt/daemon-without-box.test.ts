/**
 * The MQTT bridge of an instance without a box (NESTBOX_COPROC=none), in the real daemon against a
 * real mosquitto: the instance's sensors only in Home Assistant discovery, the device entities
 * named by platform alone (so HA removes those a start on a box announced), commands refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fallbackDeviceId } from '../../daemon/mqtt/device-id.js';
import { settingsMemory } from '../../daemon/mqtt/memory.js';
import { startAll, startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { BOX_USER, recordMessages, startMosquitto, type MosquittoBroker } from '../helpers/mosquitto-broker.js';
import { tempDir } from '../helpers/paths.js';
import { openMigratedDatabase } from '../helpers/migrated-database.js';

/** The station MAC a start on a box remembered: the id Home Assistant knows the box by. */
const BOX_MAC = '240ac4123456';
const INSTANCE_ENTITIES = [
  'unread_notifications',
  'pending_follow_requests',
  'accounts',
  'statuses',
  'storage_problem',
  'free_storage',
  'certificate_expires',
  'reachable_problem',
  'version',
];

let broker: MosquittoBroker;
const dirs: Array<{ remove(): void }> = [];
let moved: RunningDaemon;
let fresh: RunningDaemon;
let machineId: string;

test.before(async () => {
  broker = await startMosquitto();
  const machineDir = tempDir('nestbox-machine-id-');
  const boxDir = tempDir();
  dirs.push(machineDir, boxDir);
  writeFileSync(join(machineDir.path, 'machine-id'), '5a69788796a5b4c3d2e1f00f1e2d3c4b\n');
  machineId = (await fallbackDeviceId(join(machineDir.path, 'machine-id'))).id;
  const db = await openMigratedDatabase(join(boxDir.path, 'nestbox.sqlite3'));
  await settingsMemory(db).rememberDeviceId(BOX_MAC);
  await db.destroy();
  const env = {
    NESTBOX_COPROC: 'none',
    NESTBOX_MQTT_URL: broker.url,
    NESTBOX_MQTT_USERNAME: BOX_USER.username,
    NESTBOX_MQTT_PASSWORD: BOX_USER.password,
    NESTBOX_MACHINE_ID_FILE: join(machineDir.path, 'machine-id'),
  };
  [moved, fresh] = await startAll([
    startDaemon({ dataDir: boxDir.path, env, startTimeoutMs: 60_000 }),
    startDaemon({ env, startTimeoutMs: 60_000 }),
  ]);
});
test.after(async () => {
  await Promise.all([moved, fresh].map((daemon) => daemon?.stop()));
  await broker.stop();
  for (const dir of dirs) dir.remove();
});

async function discovery(deviceId: string): Promise<any> {
  const ha = await broker.client();
  try {
    const recorder = await recordMessages(ha, `homeassistant/device/${deviceId}/config`);
    return JSON.parse((await recorder.wait(() => true, { timeoutMs: 15_000 })).text);
  } finally {
    await ha.endAsync();
  }
}

test('an instance moved off its box keeps its id; discovery removes the device entities and keeps the sensors', async () => {
  const config = await discovery(BOX_MAC);
  for (const key of INSTANCE_ENTITIES) {
    assert.ok(config.cmps[key].value_template, `${key} is announced`);
    assert.is(config.cmps[key].unique_id, `nestbox_${BOX_MAC}_${key}`);
  }
  const removed = Object.entries(config.cmps as Record<string, Record<string, unknown>>).filter(
    ([key]) => !INSTANCE_ENTITIES.includes(key),
  );
  for (const name of ['connectivity', 'wifi_signal', 'coprocessor_link', 'tx_power_level', 'rescan', 'firmware']) {
    assert.ok(
      removed.some(([key]) => key === name),
      `${name} is listed for removal`,
    );
  }
  for (const [key, component] of removed) assert.equal(Object.keys(component), ['p'], `${key}: platform only`);
  assert.is(config.dev.hw, undefined);
  assert.is(config.dev.sw, undefined);
});

test('a new instance without a box appears at once under its machine id; its state says no device', async () => {
  const ha = await broker.client();
  try {
    const recorder = await recordMessages(ha, [
      `nestbox/${machineId}/state`,
      `homeassistant/device/${machineId}/config`,
    ]);
    const state = JSON.parse((await recorder.wait((m) => m.topic.endsWith('/state'), { timeoutMs: 15_000 })).text);
    assert.is(state.connectivity, 'no_device');
    const config = JSON.parse((await recorder.wait((m) => m.topic.endsWith('/config'))).text);
    assert.equal(
      Object.entries(config.cmps as Record<string, Record<string, unknown>>)
        .filter(([, component]) => 'value_template' in component || 'state_topic' in component)
        .map(([key]) => key)
        .sort(),
      [...INSTANCE_ENTITIES].sort(),
    );
  } finally {
    await ha.endAsync();
  }
  assert.ok(!fresh.logs.some((line) => /waits for the station MAC/.test(String(line.msg))));
});

test('a device command over MQTT answers a clear error', async () => {
  const ha = await broker.client();
  try {
    const recorder = await recordMessages(ha, `nestbox/${machineId}/command/scan/result`);
    await ha.publishAsync(`nestbox/${machineId}/command/scan`, '{}', { qos: 1 });
    const result = JSON.parse((await recorder.wait(() => true, { timeoutMs: 10_000 })).text);
    assert.is(result.ok, false);
    assert.match(result.error, /not available/);
  } finally {
    await ha.endAsync();
  }
});

test.run();
