/**
 * The MQTT bridge inside the real daemon, against a real mosquitto. Until the coprocessor link and
 * connectivity manager are merged nothing in the daemon reports the station MAC, so these tests
 * start the daemon on a data dir where an earlier run remembered it (the bridge's own memory).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { settingsMemory } from '../../daemon/mqtt/memory.js';
import { openDatabase } from '../../daemon/store/db.js';
import { migrate } from '../../daemon/store/migrate.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { BOX_USER, recordMessages, startMosquitto, type MosquittoBroker } from '../helpers/mosquitto-broker.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { freePort } from '../helpers/ports.js';

let broker: MosquittoBroker;
const dirs: Array<{ remove(): void }> = [];

test.before(async () => { broker = await startMosquitto(); });
test.after(async () => {
  await broker.stop();
  for (const dir of dirs) dir.remove();
});

/** A data dir in which a previous run of the daemon learnt the station MAC `mac`. */
async function dataDirRemembering(mac: string): Promise<string> {
  const dir = tempDir();
  dirs.push(dir);
  const db = openDatabase({ filename: join(dir.path, 'nestbox.sqlite3') });
  await migrate(db);
  await settingsMemory(db).rememberDeviceId(mac);
  await db.destroy();
  return dir.path;
}

function mqttEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    NESTBOX_MQTT_URL: broker.url,
    NESTBOX_MQTT_USERNAME: BOX_USER.username,
    NESTBOX_MQTT_PASSWORD: BOX_USER.password,
    ...extra,
  };
}

async function mqttHealth(daemon: RunningDaemon, status: string): Promise<{ status: string; detail?: string }> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const { body } = await daemon.json('/healthz');
    if (body.components.mqtt?.status === status || Date.now() > deadline) return body.components.mqtt;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('with no station MAC known yet the daemon is ready and MQTT says it waits for it', async () => {
  const daemon = await startDaemon({ env: mqttEnv() });
  try {
    const health = await mqttHealth(daemon, 'starting');
    assert.is(health.status, 'starting');
    assert.match(health.detail!, /station MAC/);
    const { body } = await daemon.json('/healthz');
    assert.is(body.status, 'ok');
  } finally {
    assert.is(await daemon.stop(), 0);
  }
});

test('a broker that refuses the login: READY anyway, mqtt degraded with the reason, retrying, no secret logged', async () => {
  const dataDir = await dataDirRemembering('020000000a01');
  const daemon = await startDaemon({ dataDir, env: mqttEnv({ NESTBOX_MQTT_PASSWORD: 'not-the-pw-xyzzy' }) });
  try {
    assert.ok(daemon.logs.some((line) => line.msg === 'ready'));
    const health = await mqttHealth(daemon, 'degraded');
    assert.is(health.status, 'degraded');
    assert.match(health.detail!, /refused the login/);
    const { body } = await daemon.json('/healthz');
    assert.is(body.status, 'degraded');
    await daemon.waitForLog((line) => line.component === 'mqtt' && line.msg === 'connecting to the MQTT broker');
    const problems = () => daemon.logs.filter((line) => line.msg === 'MQTT broker problem; retrying').length;
    const before = problems();
    await daemon.waitForLog(() => problems() > before, 8000);
    assert.not.match(JSON.stringify(daemon.logs), /not-the-pw-xyzzy/);
    assert.is(daemon.child.exitCode, null);
  } finally {
    assert.is(await daemon.stop(), 0);
  }
});

test('a broker that is down: READY anyway, mqtt degraded (connection refused)', async () => {
  const dataDir = await dataDirRemembering('020000000a02');
  const deadPort = await freePort();
  const daemon = await startDaemon({ dataDir, env: mqttEnv({ NESTBOX_MQTT_URL: `mqtt://127.0.0.1:${deadPort}` }) });
  try {
    const health = await mqttHealth(daemon, 'degraded');
    assert.match(health.detail!, /connection refused/);
  } finally {
    assert.is(await daemon.stop(), 0);
  }
});

test('retained online and state for a late subscriber; the Last Will says offline when the daemon is SIGKILLed', async () => {
  const dataDir = await dataDirRemembering('020000000a03');
  const daemon = await startDaemon({ dataDir, env: mqttEnv() });
  try {
    assert.is((await mqttHealth(daemon, 'ok')).status, 'ok');
    const ha = await broker.client();
    const recorder = await recordMessages(ha, ['nestbox/020000000a03/#', 'homeassistant/device/020000000a03/config']);
    assert.is((await recorder.wait((m) => m.topic.endsWith('/availability'))).text, 'online');
    const state = JSON.parse((await recorder.wait((m) => m.topic.endsWith('/state'))).text);
    assert.is(state.connectivity, 'starting');
    assert.is(state.daemon.version, JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version);
    const config = JSON.parse((await recorder.wait((m) => m.topic.endsWith('/config'))).text);
    assert.is(config.dev.cu, daemon.url);

    await ha.publishAsync('nestbox/020000000a03/command/scan', '{}', { qos: 1 });
    const result = JSON.parse((await recorder.wait((m) => m.topic === 'nestbox/020000000a03/command/scan/result')).text);
    assert.is(result.ok, false);
    assert.match(result.error, /not available/);

    const from = recorder.mark();
    daemon.child.kill('SIGKILL');
    const will = await recorder.wait((m) => m.topic.endsWith('/availability'), { from });
    assert.is(will.text, 'offline');
  } finally {
    await daemon.stop();
  }
});

test('after a broker restart the daemon republishes; SIGTERM publishes offline', async () => {
  const dataDir = await dataDirRemembering('020000000a04');
  const daemon = await startDaemon({ dataDir, env: mqttEnv() });
  try {
    await mqttHealth(daemon, 'ok');
    const connections = () => daemon.logs.filter((line) => line.msg === 'connected to the MQTT broker').length;
    assert.is(connections(), 1);
    await broker.restart();
    await daemon.waitForLog((line) => line.msg === 'lost the MQTT broker; reconnecting');
    await daemon.waitForLog(() => connections() === 2, 8000);
    const watcher = await broker.client();
    const recorder = await recordMessages(watcher, 'nestbox/020000000a04/#');
    await recorder.wait((m) => m.topic.endsWith('/state'));
    assert.is((await recorder.wait((m) => m.topic.endsWith('/availability'))).text, 'online');
    const from = recorder.mark();
    assert.is(await daemon.stop(), 0);
    assert.is((await recorder.wait((m) => m.topic.endsWith('/availability'), { from })).text, 'offline');
  } finally {
    await daemon.stop();
  }
});

test.run();
