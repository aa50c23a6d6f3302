/**
 * The MQTT bridge in-process against a real mosquitto (password file + ACL), with a real
 * DeviceState, a real SQLite settings store and a test double of the connectivity manager.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startMosquitto, HA_USER, recordMessages, type MosquittoBroker } from '../helpers/mosquitto-broker.js';
import {
  closeDatabases,
  DeviceCommandsDouble,
  delay,
  freshMemory,
  newDeviceState,
  startBridge,
  waitUntil,
  type HarnessBridge,
} from './bridge-harness.js';
import { tempDir } from '../helpers/paths.js';

let broker: MosquittoBroker;
const running: HarnessBridge[] = [];

async function bridge(options: Parameters<typeof startBridge>[1] = {}): Promise<HarnessBridge> {
  const started = await startBridge(broker, options);
  running.push(started);
  return started;
}

test.before(async () => {
  broker = await startMosquitto();
});
test.after.each(async () => {
  for (const b of running.splice(0)) await b.bridge.stop();
});
test.after(async () => {
  await broker.stop();
  await closeDatabases();
});

const DISCOVERY_TOPIC = (id: string) => `homeassistant/device/${id}/config`;

test('the bridge waits for the station MAC, then a late subscriber sees retained online and state', async () => {
  const box = await bridge({ mac: null });
  assert.is(box.health()?.status, 'starting');
  assert.match(box.health()!.detail!, /station MAC/);
  assert.ok(box.logs.some((line) => /waits for the station MAC/.test(line.msg)));

  box.device.update({ wifi: { mac: '02:00:00:00:00:01' }, connectivity: 'connected' });
  await box.waitForHealth((health) => health.status === 'ok');

  const late = await broker.client();
  const recorder = await recordMessages(late, 'nestbox/020000000001/#');
  const availability = await recorder.wait((m) => m.topic === 'nestbox/020000000001/availability');
  assert.is(availability.text, 'online');
  assert.ok(availability.retain);
  const state = await recorder.wait((m) => m.topic === 'nestbox/020000000001/state');
  assert.ok(state.retain);
  const body = JSON.parse(state.text);
  assert.is(body.connectivity, 'connected');
  assert.is(body.wifi.mac, '02:00:00:00:00:01');
  assert.is(body.daemon.version, '9.8.7');
  assert.equal(Object.keys(body.instance).sort(), [
    'accounts',
    'pending_follow_requests',
    'statuses',
    'unread_notifications',
  ]);
  assert.is(await box.memory.deviceId(), '020000000001');
});

test('a coprocessor that never answered: the box appears under an id from the machine id, shown as lost, and keeps it once the MAC is known', async () => {
  const dir = tempDir('nestbox-machine-id-');
  const machineIdPath = join(dir.path, 'machine-id');
  writeFileSync(machineIdPath, '3d1219c7c4c5404aaa1f6d2a48adfda4\n');
  const memory = await freshMemory();
  try {
    const box = await bridge({ mac: null, memory, machineIdPath });
    assert.is(box.health()?.status, 'starting');
    box.device.update({ connectivity: 'device_lost' });
    await box.waitForHealth((health) => health.status === 'ok');
    const id = box.bridge.status().deviceId!;
    assert.match(id, /^[0-9a-f]{12}$/);
    assert.not.ok(id.includes('3d1219c7c4c5'), 'the machine id itself is not published');
    assert.is(await memory.deviceIdSource(), 'machine');
    const ha = await broker.client();
    const recorder = await recordMessages(ha, [`nestbox/${id}/state`, DISCOVERY_TOPIC(id)]);
    const state = JSON.parse((await recorder.wait((m) => m.topic.endsWith('/state'))).text);
    assert.is(state.connectivity, 'device_lost');
    const config = JSON.parse((await recorder.wait((m) => m.topic === DISCOVERY_TOPIC(id))).text);
    assert.is(config.dev.cns, undefined, 'no MAC connection before a MAC is known');
    assert.is(config.cmps.coprocessor_link.value_template.includes('responding'), true);

    // The coprocessor answers at last: same id (one device in Home Assistant), the MAC as connection.
    const from = recorder.mark();
    box.device.update({ connectivity: 'connecting', wifi: { mac: '02:00:00:00:00:31' } });
    const updated = await recorder.wait(
      (m) => m.topic === DISCOVERY_TOPIC(id) && JSON.parse(m.text).dev.cns !== undefined,
      { from },
    );
    assert.equal(JSON.parse(updated.text).dev.cns, [['mac', '02:00:00:00:00:31']]);
    assert.is(box.bridge.status().deviceId, id);
    await box.bridge.stop();

    // After a restart, with the MAC known from the start: still the same id.
    const again = await bridge({ mac: '02:00:00:00:00:31', memory, machineIdPath });
    await again.waitForHealth((health) => health.status === 'ok');
    assert.is(again.bridge.status().deviceId, id);
  } finally {
    dir.remove();
  }
});

test('no machine id either: a random id, stored and used again', async () => {
  const memory = await freshMemory();
  const box = await bridge({ mac: null, memory, machineIdPath: '/nonexistent/machine-id', timing: { macWaitMs: 100 } });
  await box.waitForHealth((health) => health.status === 'ok');
  const id = box.bridge.status().deviceId!;
  assert.match(id, /^[0-9a-f]{12}$/);
  assert.ok(box.logs.some((line) => line.from === 'random'));
  await box.bridge.stop();
  const again = await bridge({ mac: null, memory, machineIdPath: '/nonexistent/machine-id' });
  await again.waitForHealth((health) => health.status === 'ok');
  assert.is(again.bridge.status().deviceId, id);
});

test('changes are coalesced into one state message; volatile values alone publish nothing', async () => {
  const box = await bridge({ mac: '02:00:00:00:00:02' });
  await box.waitForHealth((health) => health.status === 'ok');
  const watcher = await broker.client();
  const recorder = await recordMessages(watcher, 'nestbox/020000000002/state');
  await recorder.wait(() => true); // the retained one
  await delay(50);

  const from = recorder.mark();
  box.device.update({ connectivity: 'connecting' });
  box.device.update({ wifi: { ssid: 'Home' } });
  box.device.update({ connectivity: 'connected', instance: { unread_notifications: 3 } });
  const state = await recorder.wait((m) => JSON.parse(m.text).instance.unread_notifications === 3, { from });
  assert.is(JSON.parse(state.text).wifi.ssid, 'Home');
  await delay(150);
  assert.is(recorder.messages.length - from, 1, 'three updates in one tick make one message');

  const quiet = recorder.mark();
  for (let n = 1; n <= 20; n += 1) {
    box.device.update({
      coprocessor: { heartbeat_number: n, last_heartbeat: new Date().toISOString() },
      wifi: { rssi: -40 - n },
    });
  }
  await delay(200);
  assert.is(recorder.messages.length - quiet, 0, 'heartbeats, uptime and signal wait for the refresh schedule');
});

test('the refresh schedule republishes volatile values (heartbeat number, uptime)', async () => {
  const box = await bridge({ mac: '02:00:00:00:00:03', refreshSchedule: '* * * * * *' });
  await box.waitForHealth((health) => health.status === 'ok');
  const watcher = await broker.client();
  const recorder = await recordMessages(watcher, 'nestbox/020000000003/state');
  box.device.update({ coprocessor: { heartbeat_number: 42 } });
  const refreshed = await recorder.wait((m) => JSON.parse(m.text).coprocessor.heartbeat_number === 42, {
    timeoutMs: 5000,
  });
  assert.type(JSON.parse(refreshed.text).daemon.uptime_s, 'number');
});

test("events from before the bridge started (the first boot's setup mode) still go out, once", async () => {
  const watcher = await broker.client();
  const recorder = await recordMessages(watcher, 'nestbox/020000000005/event/#');
  const device = newDeviceState('02:00:00:00:00:05');
  device.publishEvent('setup_ap_started', { ssid: 'Nestbox-Early' });
  const box = await bridge({ device });
  const event = await recorder.wait((m) => m.topic === 'nestbox/020000000005/event/setup_ap_started');
  assert.is(JSON.parse(event.text).ssid, 'Nestbox-Early');
  box.device.publishEvent('setup_ap_stopped');
  await recorder.wait((m) => m.topic === 'nestbox/020000000005/event/setup_ap_stopped');
  assert.is(recorder.messages.filter((m) => m.topic.endsWith('/setup_ap_started')).length, 1);
});

test('events go out on event/<name>, not retained', async () => {
  const box = await bridge({ mac: '02:00:00:00:00:04' });
  await box.waitForHealth((health) => health.status === 'ok');
  const watcher = await broker.client();
  const recorder = await recordMessages(watcher, 'nestbox/020000000004/event/#');
  box.device.publishEvent('setup_ap_started', { ssid: 'Nestbox-Setup' });
  const event = await recorder.wait((m) => m.topic === 'nestbox/020000000004/event/setup_ap_started');
  assert.is(event.retain, false);
  assert.is(JSON.parse(event.text).ssid, 'Nestbox-Setup');
  assert.type(JSON.parse(event.text).at, 'string');

  const late = await broker.client();
  const lateRecorder = await recordMessages(late, 'nestbox/020000000004/event/#');
  await delay(150);
  assert.is(lateRecorder.messages.length, 0, 'events are not retained');
});

test('events that happen before the bridge can connect are delivered once it has', async () => {
  const watcher = await broker.client();
  const recorder = await recordMessages(watcher, 'nestbox/020000000013/event/+');
  const box = await bridge({ mac: null });
  box.device.publishEvent('coprocessor_reset', { reason: 'power on' });
  box.device.update({ wifi: { mac: '02:00:00:00:00:13' } });
  const event = await recorder.wait(() => true);
  assert.is(event.topic, 'nestbox/020000000013/event/coprocessor_reset');
  assert.is(JSON.parse(event.text).reason, 'power on');
});

test('the discovery config has dev, o, cmps and every entity the issue lists', async () => {
  const box = await bridge({ mac: '02:00:00:00:00:05' });
  await box.waitForHealth((health) => health.status === 'ok');
  const ha = await broker.client();
  const recorder = await recordMessages(ha, DISCOVERY_TOPIC('020000000005'));
  const message = await recorder.wait(() => true);
  assert.ok(message.retain);
  const config = JSON.parse(message.text);
  assert.equal(config.dev.ids, ['nestbox_020000000005']);
  assert.equal(config.dev.cns, [['mac', '02:00:00:00:00:05']]);
  assert.is(config.dev.sw, undefined, 'no firmware version before the coprocessor tells one');
  assert.is(config.dev.cu, 'http://nestbox-test.local:8080/dashboard', 'the .local name, never localhost');
  assert.is(config.o.name, 'Nestbox');
  assert.is(config.o.sw, '9.8.7');
  assert.match(config.o.url, /^https?:\/\//);
  assert.is(config.state_topic, 'nestbox/020000000005/state');
  assert.is(config.availability_topic, 'nestbox/020000000005/availability');
  const cmps = config.cmps as Record<string, Record<string, unknown>>;
  const expected: Record<string, string> = {
    connectivity: 'binary_sensor',
    wifi_signal: 'sensor',
    wifi_ssid: 'sensor',
    connectivity_state: 'sensor',
    setup_ap_stations: 'sensor',
    coprocessor_link: 'binary_sensor',
    coprocessor_resets: 'sensor',
    firmware_release: 'binary_sensor',
    tx_power_level: 'select',
    tx_power: 'number', // retired: named by its platform alone, so Home Assistant removes it
    firmware: 'update',
    events: 'event',
    wifi_networks: 'sensor',
    wifi_mode: 'sensor',
    power_save: 'select',
    setup_mode: 'button',
    rescan: 'button',
    restart_coprocessor: 'button',
    firmware_update_progress: 'sensor',
    unread_notifications: 'sensor',
    version: 'sensor',
    ip_address: 'sensor',
  };
  for (const [key, platform] of Object.entries(expected)) {
    assert.ok(cmps[key], `component ${key}`);
    assert.is(cmps[key].p, platform, key);
  }
  const ids = new Set<unknown>();
  const live = Object.entries(cmps).filter(([key]) => key !== 'tx_power');
  for (const [key, component] of live) {
    assert.type(component.unique_id, 'string', key);
    ids.add(component.unique_id);
  }
  assert.is(ids.size, live.length, 'unique ids are unique');
  assert.is(cmps.connectivity.device_class, 'connectivity');
  assert.is(cmps.connectivity.entity_category, 'diagnostic');
  assert.is(cmps.wifi_signal.device_class, 'signal_strength');
  assert.is(cmps.wifi_signal.unit_of_measurement, 'dBm');
  assert.is(cmps.connectivity_state.device_class, 'enum');
  assert.is(cmps.tx_power_level.command_topic, 'nestbox/020000000005/command/tx_power');
  assert.is(cmps.power_save.command_topic, 'nestbox/020000000005/command/power_save');
  assert.is(cmps.rescan.command_topic, 'nestbox/020000000005/command/scan');
  assert.is(cmps.restart_coprocessor.device_class, 'restart');
  assert.is(cmps.coprocessor_resets.state_class, 'total_increasing');
  assert.is(cmps.firmware_release.device_class, 'problem');
  assert.is(cmps.ip_address.name, 'IP address');
  assert.is(cmps.ip_address.entity_category, 'diagnostic');
  assert.not.ok(
    'unit_of_measurement' in cmps.ip_address || 'state_class' in cmps.ip_address,
    'an address is text: no unit, no state class',
  );
  assert.not.ok(cmps.setup_passphrase, 'no passphrase entity unless the owner turns it on');
});

test('homeassistant/status online makes the bridge send discovery and state again', async () => {
  const box = await bridge({ mac: '02:00:00:00:00:06' });
  await box.waitForHealth((health) => health.status === 'ok');
  const ha = await broker.client();
  const recorder = await recordMessages(ha, [DISCOVERY_TOPIC('020000000006'), 'nestbox/020000000006/state']);
  await recorder.wait((m) => m.topic.endsWith('/state'));
  await delay(50);
  const from = recorder.mark();
  await ha.publishAsync('homeassistant/status', 'online');
  const config = await recorder.wait((m) => m.topic === DISCOVERY_TOPIC('020000000006'), { from });
  assert.ok(JSON.parse(config.text).cmps);
  await recorder.wait((m) => m.topic === 'nestbox/020000000006/state', { from });
});

test('turning discovery off removes the retained config with an empty payload', async () => {
  const memory = await freshMemory();
  const first = await bridge({ mac: '02:00:00:00:00:07', memory });
  await first.waitForHealth((health) => health.status === 'ok');
  const ha = await broker.client();
  const recorder = await recordMessages(ha, DISCOVERY_TOPIC('020000000007'));
  await recorder.wait((m) => m.text.length > 0);
  await first.bridge.stop();

  const from = recorder.mark();
  const second = await bridge({ mac: '02:00:00:00:00:07', memory, discoveryPrefix: null });
  await second.waitForHealth((health) => health.status === 'ok');
  const removal = await recorder.wait(() => true, { from });
  assert.is(removal.text, '');

  const late = await broker.client();
  const lateRecorder = await recordMessages(late, DISCOVERY_TOPIC('020000000007'));
  await delay(150);
  assert.is(lateRecorder.messages.length, 0, 'no retained config is left');
});

test('every command round trip goes through the connectivity manager and answers on command/<name>/result', async () => {
  const commands = new DeviceCommandsDouble();
  const box = await bridge({ mac: '02:00:00:00:00:08', commands });
  await box.waitForHealth((health) => health.status === 'ok');
  const ha = await broker.client();
  const recorder = await recordMessages(ha, 'nestbox/020000000008/command/+/result');
  const ask = async (name: string, payload: string) => {
    const from = recorder.mark();
    await ha.publishAsync(`nestbox/020000000008/command/${name}`, payload, { qos: 1 });
    const result = await recorder.wait((m) => m.topic === `nestbox/020000000008/command/${name}/result`, { from });
    assert.is(result.retain, false);
    return JSON.parse(result.text);
  };

  const scan = await ask('scan', '{}');
  assert.is(scan.ok, true);
  assert.is(scan.networks.length, 2);
  assert.is(scan.networks[0].ssid, 'Home');
  assert.equal(await ask('setup_mode', 'PRESS'), { ok: true });
  assert.equal(await ask('restart_coprocessor', ''), { ok: true });
  assert.equal(await ask('tx_power', '{"dbm": 15}'), { ok: true, dbm: 15 });
  assert.equal(await ask('tx_power', '8.3'), { ok: true, dbm: 8.25 });
  assert.equal(await ask('power_save', '{"mode": "min_modem"}'), { ok: true, mode: 'min_modem' });
  assert.equal(await ask('power_save', 'max_modem'), { ok: true, mode: 'max_modem' });
  assert.equal(await ask('power_save', 'off'), { ok: true, mode: 'none' });
  assert.equal(commands.calls, [
    'scan',
    'setup_mode',
    'restart_coprocessor',
    'tx_power 15',
    'tx_power 8.3',
    'power_save min_modem',
    'power_save max_modem',
    'power_save none',
  ]);
});

test('bad command payloads get a clear error result and the bridge keeps working', async () => {
  const commands = new DeviceCommandsDouble();
  commands.failRestartWith = new Error('the coprocessor did not answer (timeout)');
  const box = await bridge({ mac: '02:00:00:00:00:09', commands });
  await box.waitForHealth((health) => health.status === 'ok');
  const ha = await broker.client();
  const recorder = await recordMessages(ha, 'nestbox/020000000009/command/+/result');
  const ask = async (name: string, payload: string | Buffer, retain = false) => {
    const from = recorder.mark();
    await ha.publishAsync(`nestbox/020000000009/command/${name}`, payload, { qos: 1, retain });
    const result = await recorder.wait((m) => m.topic === `nestbox/020000000009/command/${name}/result`, { from });
    return JSON.parse(result.text);
  };
  const refused = async (name: string, payload: string | Buffer, pattern: RegExp) => {
    const result = await ask(name, payload);
    assert.is(result.ok, false, `${name} ${payload.toString()}`);
    assert.match(result.error, pattern);
  };

  await refused('tx_power', 'loud', /number of dBm/);
  await refused('tx_power', '99', /from 2 to 20 dBm/);
  await refused('tx_power', '{}', /number of dBm/);
  await refused('power_save', 'turbo', /one of none, min_modem, max_modem/);
  await refused('power_save', '{"mode": 3}', /one of/);
  await refused('scan', '{"fast": true}', /takes no options/);
  await refused('setup_mode', '[1,2', /takes no options/);
  await refused('reboot', '{}', /unknown command "reboot"/);
  await refused('scan', Buffer.alloc(4096, 0x20), /too large/);
  await refused('restart_coprocessor', '{}', /did not answer/);
  assert.equal(commands.calls, ['restart_coprocessor'], 'only the valid command reached the connectivity manager');

  assert.equal(await ask('tx_power', '11'), { ok: true, dbm: 11 });
});

test('a command sent again while it still runs is refused, not queued', async () => {
  const commands = new DeviceCommandsDouble();
  let finishScan!: () => void;
  commands.scanGate = new Promise((resolve) => {
    finishScan = resolve;
  });
  const box = await bridge({ mac: '02:00:00:00:00:14', commands });
  await box.waitForHealth((health) => health.status === 'ok');
  const ha = await broker.client();
  const recorder = await recordMessages(ha, 'nestbox/020000000014/command/scan/result');
  await ha.publishAsync('nestbox/020000000014/command/scan', 'PRESS', { qos: 1 });
  await ha.publishAsync('nestbox/020000000014/command/scan', 'PRESS', { qos: 1 });
  const busy = JSON.parse((await recorder.wait(() => true)).text);
  assert.equal(busy, { ok: false, error: 'scan is still running; send it again once its result has arrived' });
  finishScan();
  const done = JSON.parse((await recorder.wait((m) => JSON.parse(m.text).ok === true)).text);
  assert.is(done.networks.length, 2);
  assert.equal(commands.calls, ['scan']);
});

test('a retained command is refused when it is delivered on (re)subscribe, never executed', async () => {
  const ha = await broker.client();
  // Someone published a command with the retain flag: every new subscription would replay it.
  await ha.publishAsync('nestbox/020000000012/command/restart_coprocessor', '{}', { qos: 1, retain: true });
  const recorder = await recordMessages(ha, 'nestbox/020000000012/command/+/result');
  const commands = new DeviceCommandsDouble();
  const box = await bridge({ mac: '02:00:00:00:00:12', commands });
  await box.waitForHealth((health) => health.status === 'ok');
  const result = JSON.parse((await recorder.wait(() => true)).text);
  assert.is(result.ok, false);
  assert.match(result.error, /retained commands are ignored/);
  assert.equal(commands.calls, []);
  await box.bridge.stop(); // clearing it sends an empty message, itself a valid press
  await ha.publishAsync('nestbox/020000000012/command/restart_coprocessor', '', { qos: 1, retain: true });
});

test('without a connectivity manager a command answers a clear error', async () => {
  const box = await bridge({ mac: '02:00:00:00:00:0a', commands: null });
  await box.waitForHealth((health) => health.status === 'ok');
  const ha = await broker.client();
  const recorder = await recordMessages(ha, 'nestbox/02000000000a/command/+/result');
  await ha.publishAsync('nestbox/02000000000a/command/scan', '{}', { qos: 1 });
  const result = JSON.parse((await recorder.wait(() => true)).text);
  assert.is(result.ok, false);
  assert.match(result.error, /connectivity manager is not running/);
});

test('after a broker restart the bridge reconnects and republishes availability and state', async () => {
  const box = await bridge({ mac: '02:00:00:00:00:0b' });
  await box.waitForHealth((health) => health.status === 'ok');
  box.device.update({ connectivity: 'setup_ap' });
  await delay(100);
  await broker.restart();
  await box.waitForHealth((health) => health.status === 'degraded');
  await box.waitForHealth((health) => health.status === 'ok', 6000);
  const late = await broker.client();
  const recorder = await recordMessages(late, 'nestbox/02000000000b/#');
  assert.is((await recorder.wait((m) => m.topic.endsWith('/availability'))).text, 'online');
  const state = await recorder.wait((m) => m.topic.endsWith('/state'));
  assert.is(JSON.parse(state.text).connectivity, 'setup_ap');
});

test('a wrong password makes the bridge degraded with the reason, and it keeps retrying', async () => {
  const box = await bridge({
    mac: '02:00:00:00:00:0c',
    broker: {
      url: broker.url,
      username: 'nestbox',
      password: 'wrong',
      protocolVersion: 4,
      clientId: null,
      caFile: null,
      certFile: null,
      keyFile: null,
    },
  });
  const health = await box.waitForHealth((h) => h.status === 'degraded');
  assert.match(health.detail!, /refused the login/);
  await waitUntil(() => box.bridge.status().attempts >= 3, 'three connection attempts');
  assert.is(box.bridge.status().connected, false);
  assert.not.match(JSON.stringify(box.logs), /wrong/);
});

test('MQTT 5 works as an option', async () => {
  const box = await bridge({
    mac: '02:00:00:00:00:0d',
    broker: {
      url: broker.url,
      username: 'nestbox',
      password: 'box-s3cret-pw',
      protocolVersion: 5,
      clientId: 'box-v5',
      caFile: null,
      certFile: null,
      keyFile: null,
    },
  });
  await box.waitForHealth((health) => health.status === 'ok');
  const late = await broker.client(HA_USER, { protocolVersion: 5 });
  const recorder = await recordMessages(late, ['nestbox/02000000000d/state', 'nestbox/02000000000d/command/+/result']);
  assert.ok(JSON.parse((await recorder.wait((m) => m.topic.endsWith('/state'))).text).daemon);

  // With MQTT 5 the bridge sees the retain flag even on a live message, and refuses it at once.
  await late.publishAsync('nestbox/02000000000d/command/setup_mode', '{}', { qos: 1, retain: true });
  const result = JSON.parse((await recorder.wait((m) => m.topic.endsWith('/setup_mode/result'))).text);
  assert.match(result.error, /retained commands are ignored/);
  await box.bridge.stop();
  await late.publishAsync('nestbox/02000000000d/command/setup_mode', '', { qos: 1, retain: true });
});

test('a clean stop publishes offline (retained); nothing secret is in the state', async () => {
  const box = await bridge({ mac: '02:00:00:00:00:0e' });
  await box.waitForHealth((health) => health.status === 'ok');
  const watcher = await broker.client();
  const recorder = await recordMessages(watcher, 'nestbox/02000000000e/#');
  const state = await recorder.wait((m) => m.topic.endsWith('/state'));
  assert.not.match(state.text, /pass|token|secret/i);
  await box.bridge.stop();
  const offline = await recorder.wait((m) => m.topic.endsWith('/availability') && m.text === 'offline');
  assert.ok(offline);
  const late = await broker.client();
  const lateRecorder = await recordMessages(late, 'nestbox/02000000000e/availability');
  assert.is((await lateRecorder.wait(() => true)).text, 'offline');
});

test('the setup passphrase is published only when the owner turns it on', async () => {
  const box = await bridge({ mac: '02:00:00:00:00:0f', setupPassphrase: () => 'correct-horse-battery' });
  await box.waitForHealth((health) => health.status === 'ok');
  const ha = await broker.client();
  const recorder = await recordMessages(ha, ['nestbox/02000000000f/state', DISCOVERY_TOPIC('02000000000f')]);
  const state = await recorder.wait((m) => m.topic.endsWith('/state'));
  assert.is(JSON.parse(state.text).softap.setup_passphrase, 'correct-horse-battery');
  const config = await recorder.wait((m) => m.topic.endsWith('/config'));
  assert.ok(JSON.parse(config.text).cmps.setup_passphrase);
});

test('a new station MAC moves the bridge to the new device id and clears the old retained topics', async () => {
  const box = await bridge({ mac: '02:00:00:00:00:10' });
  await box.waitForHealth((health) => health.status === 'ok');
  await delay(50);
  box.device.update({ wifi: { mac: '02:00:00:00:00:11' } });
  await box.waitForHealth((health) => health.status === 'ok' && /020000000011/.test(health.detail ?? ''));
  await delay(100);
  const late = await broker.client();
  const recorder = await recordMessages(late, [
    'nestbox/020000000010/#',
    DISCOVERY_TOPIC('020000000010'),
    'nestbox/020000000011/state',
  ]);
  await recorder.wait((m) => m.topic === 'nestbox/020000000011/state');
  await delay(100);
  assert.equal(
    recorder.messages.map((m) => m.topic),
    ['nestbox/020000000011/state'],
    'nothing retained under the old id',
  );
});

test.run();
