/**
 * The MQTT bridge inside the real daemon, against a real mosquitto. The embedded simulator reports
 * the station MAC (the device id); tests of a broker that cannot be used start the daemon on a data
 * dir where an earlier run remembered a MAC (the bridge's own memory), as after a restart.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fallbackDeviceId } from '../../daemon/mqtt/device-id.js';
import { settingsMemory } from '../../daemon/mqtt/memory.js';
import { startAll, startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { BOX_USER, recordMessages, startMosquitto, type MosquittoBroker } from '../helpers/mosquitto-broker.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { freePort } from '../helpers/ports.js';
import { startSimOnPty, type SimOnPty } from '../helpers/pty.js';
import { openMigratedDatabase } from '../helpers/migrated-database.js';

let broker: MosquittoBroker;
const dirs: Array<{ remove(): void }> = [];
/** One daemon per case, all started together (each test stops its own). */
let pty: SimOnPty;
/** Five daemons start at once on two cores: each may take longer than alone. */
const TOGETHER = { startTimeoutMs: 60_000 };
const machineIdDir = tempDir('nestbox-machine-id-');
let daemons: Record<'waiting' | 'refused' | 'down' | 'killed' | 'restarted', RunningDaemon>;

test.before(async () => {
  broker = await startMosquitto();
  // Its own device (another station MAC, so another client id and topics than the embedded simulator's).
  pty = await startSimOnPty({ framing: 'serial', timeScale: 20, stationMac: '02:be:0c:5e:77:02' });
  writeFileSync(join(machineIdDir.path, 'machine-id'), '0f1e2d3c4b5a69788796a5b4c3d2e1f0\n');
  const [refusedDir, downDir, deadPort] = await Promise.all([
    dataDirRemembering(EMBEDDED_SIM_MAC),
    dataDirRemembering(EMBEDDED_SIM_MAC),
    freePort(),
  ]);
  const [waiting, refused, down, killed, restarted] = await startAll([
    // A coprocessor that never answers: the MAC stays unknown.
    startDaemon({
      ...TOGETHER,
      env: mqttEnv({
        NESTBOX_SIM_SCENARIO: 'unresponsive',
        NESTBOX_MACHINE_ID_FILE: join(machineIdDir.path, 'machine-id'),
      }),
    }),
    startDaemon({ ...TOGETHER, dataDir: refusedDir, env: mqttEnv({ NESTBOX_MQTT_PASSWORD: 'not-the-pw-xyzzy' }) }),
    startDaemon({ ...TOGETHER, dataDir: downDir, env: mqttEnv({ NESTBOX_MQTT_URL: `mqtt://127.0.0.1:${deadPort}` }) }),
    startDaemon({ ...TOGETHER, env: mqttEnv() }),
    startDaemon({
      ...TOGETHER,
      env: mqttEnv({ NESTBOX_COPROC: `serial:${pty.path}`, NESTBOX_COPROC_TIME_SCALE: '20' }),
    }),
  ]);
  daemons = { waiting, refused, down, killed, restarted };
});
test.after(async () => {
  await Promise.all(Object.values(daemons ?? {}).map((daemon) => daemon.stop()));
  await pty?.close();
  await broker.stop();
  for (const dir of dirs) dir.remove();
  machineIdDir.remove();
});

/** The embedded simulator's station MAC: remembering it means the id stays the same once it answers. */
const EMBEDDED_SIM_MAC = '240ac4123456';

/** A data dir in which a previous run of the daemon learnt the station MAC `mac`. */
async function dataDirRemembering(mac: string): Promise<string> {
  const dir = tempDir();
  dirs.push(dir);
  const db = await openMigratedDatabase(join(dir.path, 'nestbox.sqlite3'));
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

test('a coprocessor that never answers: the daemon is ready and the box appears under its machine id, shown as lost', async () => {
  const daemon = daemons.waiting;
  try {
    assert.ok(daemon.logs.some((line) => line.msg === 'ready'));
    const health = await mqttHealth(daemon, 'ok');
    assert.is(health.status, 'ok', JSON.stringify(health));
    const { id } = await fallbackDeviceId(join(machineIdDir.path, 'machine-id'));
    const ha = await broker.client();
    const recorder = await recordMessages(ha, [`nestbox/${id}/state`, `homeassistant/device/${id}/config`]);
    const state = JSON.parse((await recorder.wait((m) => m.topic.endsWith('/state'))).text);
    assert.is(state.connectivity, 'device_lost');
    assert.is(state.coprocessor.responding, false);
    const config = JSON.parse((await recorder.wait((m) => m.topic.endsWith('/config'))).text);
    assert.is(config.dev.cns, undefined);
    await ha.endAsync();
  } finally {
    assert.is(await daemon.stop(), 0);
  }
});

test('a broker that refuses the login: READY anyway, mqtt degraded with the reason, retrying, no secret logged', async () => {
  const daemon = daemons.refused;
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
  const daemon = daemons.down;
  try {
    const health = await mqttHealth(daemon, 'degraded');
    assert.match(health.detail!, /connection refused/);
  } finally {
    assert.is(await daemon.stop(), 0);
  }
});

/** The device id: the simulator's station MAC as 12 hex digits, as the daemon reads it. */
async function deviceIdOf(daemon: RunningDaemon): Promise<string> {
  const ready = await daemon.waitForLog((line) => line.msg === 'coprocessor initialised');
  return String(ready.mac).replace(/:/g, '');
}

test('retained online and state for a late subscriber; a command through the connectivity manager; the Last Will says offline when the daemon is SIGKILLed', async () => {
  const daemon = daemons.killed;
  try {
    assert.is((await mqttHealth(daemon, 'ok')).status, 'ok');
    const id = await deviceIdOf(daemon);
    assert.match(id, /^[0-9a-f]{12}$/);
    const ha = await broker.client();
    const recorder = await recordMessages(ha, [`nestbox/${id}/#`, `homeassistant/device/${id}/config`]);
    assert.is((await recorder.wait((m) => m.topic.endsWith('/availability'))).text, 'online');
    const state = JSON.parse((await recorder.wait((m) => m.topic.endsWith('/state'))).text);
    assert.is(state.wifi.mac.replace(/:/g, ''), id);
    assert.is(state.daemon.version, JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version);
    const config = JSON.parse((await recorder.wait((m) => m.topic.endsWith('/config'))).text);
    // The daemon's base URL is a loopback address: nothing another machine could visit.
    assert.is(config.dev.cu, undefined);

    await ha.publishAsync(`nestbox/${id}/command/scan`, '{}', { qos: 1 });
    const result = JSON.parse(
      (await recorder.wait((m) => m.topic === `nestbox/${id}/command/scan/result`, { timeoutMs: 10_000 })).text,
    );
    assert.is(result.ok, true, JSON.stringify(result));
    assert.ok(result.networks.some((n: { ssid: string }) => n.ssid === 'HomeNet'));

    const from = recorder.mark();
    daemon.child.kill('SIGKILL');
    const will = await recorder.wait((m) => m.topic.endsWith('/availability'), { from });
    assert.is(will.text, 'offline');
  } finally {
    await daemon.stop();
  }
});

test('after a broker restart the daemon republishes; SIGTERM publishes offline', async () => {
  const daemon = daemons.restarted;
  try {
    await mqttHealth(daemon, 'ok');
    const id = await deviceIdOf(daemon);
    const connections = () => daemon.logs.filter((line) => line.msg === 'connected to the MQTT broker').length;
    assert.is(connections(), 1);
    await broker.restart();
    await daemon.waitForLog((line) => line.msg === 'lost the MQTT broker; reconnecting');
    await daemon.waitForLog(() => connections() === 2, 8000);
    const watcher = await broker.client();
    const recorder = await recordMessages(watcher, `nestbox/${id}/#`);
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
