/**
 * The running daemon's device side as home automation and systemd see it: one daemon on the
 * simulated coprocessor over a pseudo-terminal (fast time scale), a real mosquitto and a systemd
 * notify socket. The simulator's scenario controls make the device do things; the tests read the
 * events, the retained state and command results on the broker, STATUS= on the notify socket and
 * /healthz — nothing is set on the daemon directly. The steps follow one another on one daemon.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DISCONNECT_REASON } from '../../daemon/coproc/sim/index.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { homeAssistantView, type EntityView } from '../helpers/ha-templates.js';
import {
  BOX_USER,
  recordMessages,
  startMosquitto,
  type MessageRecorder,
  type MosquittoBroker,
  type ReceivedMessage,
} from '../helpers/mosquitto-broker.js';
import { startNotifyListener, type NotifyListener } from '../helpers/notify-socket.js';
import { startSimOnPty, type SimOnPty } from '../helpers/pty.js';
import { SIM_HOME } from '../helpers/sim-connectivity.js';

const STATION_MAC = '02:be:0c:5e:77:01';
const ID = STATION_MAC.replace(/:/g, '');
const BASE = `nestbox/${ID}`;
const CONFIG_TOPIC = `homeassistant/device/${ID}/config`;

let broker: MosquittoBroker;
let pty: SimOnPty;
let notify: NotifyListener;
let daemon: RunningDaemon;
let ha: Awaited<ReturnType<MosquittoBroker['client']>>;
let recorder: MessageRecorder;

test.before(async () => {
  broker = await startMosquitto();
  pty = await startSimOnPty({ timeScale: 20, framing: 'serial', stationMac: STATION_MAC });
  notify = await startNotifyListener();
  ha = await broker.client();
  // Subscribed before the daemon starts: events are not retained.
  recorder = await recordMessages(ha, [`${BASE}/#`, CONFIG_TOPIC]);
  daemon = await startDaemon({
    env: {
      NOTIFY_SOCKET: notify.path,
      NESTBOX_COPROC: `serial:${pty.path}`,
      NESTBOX_COPROC_TIME_SCALE: '20',
      NESTBOX_MQTT_URL: broker.url,
      NESTBOX_MQTT_USERNAME: BOX_USER.username,
      NESTBOX_MQTT_PASSWORD: BOX_USER.password,
      NESTBOX_HEARTBEAT_MISSES: '2',
      NESTBOX_RECONNECT_DELAY_MS: '100',
      NESTBOX_STABLE_S: '0',
      NESTBOX_FALLBACK_AFTER_S: '30',
      NESTBOX_SETUP_PASSPHRASE: 'device-test-key',
    },
  });
});

test.after(async () => {
  if (process.env.DEBUG_DAEMON_LOGS)
    for (const line of daemon?.logs ?? [])
      if (line.component !== 'http') console.log(JSON.stringify(line).slice(0, 300));
  await daemon?.stop();
  await ha?.endAsync();
  await notify?.close();
  await pty?.close();
  await broker?.stop();
});

const event = (name: string) => (m: ReceivedMessage) => m.topic === `${BASE}/event/${name}`;
const state = (check: (s: any) => boolean) => (m: ReceivedMessage) =>
  m.topic === `${BASE}/state` && check(JSON.parse(m.text));
const status = (pattern: RegExp) => (m: Record<string, string>) => pattern.test(m.STATUS ?? '');

/** What Home Assistant shows for a state message, by the latest discovery config's templates. */
async function haView(state: ReceivedMessage): Promise<Record<string, EntityView>> {
  await recorder.wait((m) => m.topic === CONFIG_TOPIC);
  const config = recorder.messages.filter((m) => m.topic === CONFIG_TOPIC).at(-1)!;
  return homeAssistantView(JSON.parse(config.text), state.text);
}

async function command(name: string, payload: string): Promise<any> {
  const from = recorder.mark();
  await ha.publishAsync(`${BASE}/command/${name}`, payload, { qos: 1 });
  return JSON.parse(
    (await recorder.wait((m) => m.topic === `${BASE}/command/${name}/result`, { from, timeoutMs: 10_000 })).text,
  );
}

test('first boot with no saved network: the state says setup mode, event setup_ap_started, STATUS= says to join the setup AP', async () => {
  const setup = await recorder.wait(
    state((s) => s.connectivity === 'setup_ap' && s.softap.active),
    { timeoutMs: 10_000 },
  );
  const shown = await haView(setup);
  assert.is(shown.connectivity_state.state, 'setup_ap');
  assert.is(shown.connectivity.state, 'OFF');
  assert.is(shown.coprocessor_link.state, 'ON', 'the chip answers');
  assert.is(shown.wifi_mode.state, JSON.parse(setup.text).wifi.mode);
  assert.ok(['softap', 'apsta'].includes(shown.wifi_mode.state as string), 'the soft AP runs: the device says so');
  assert.is(shown.setup_ap_stations.state, '0');
  // Published even when setup mode began before the MQTT bridge existed (it starts after connectivity).
  const started = JSON.parse((await recorder.wait(event('setup_ap_started'), { timeoutMs: 10_000 })).text);
  assert.ok(!Number.isNaN(Date.parse(started.at)), JSON.stringify(started));
  const line = await notify.waitFor(status(/^setup mode: join "/));
  assert.match(line.STATUS, /\(0 connected\)/);
  assert.is((await daemon.json('/healthz')).body.status, 'ok', 'setup mode is a state, not a fault');
});

test('credentials through the setup API → connected: STATUS= online via the network, event setup_ap_stopped', async () => {
  const from = recorder.mark();
  const answer = await daemon.json('/setup/api/connect', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ssid: SIM_HOME.ssid, password: SIM_HOME.passphrase }),
  });
  assert.is(answer.status, 202);
  await recorder.wait(event('setup_ap_stopped'), { from, timeoutMs: 10_000 });
  await notify.waitFor(status(new RegExp(`^online via ${SIM_HOME.ssid} \\(-\\d+ dBm\\)`)));
});

test('the access point drops the station → event disconnected with the reason, STATUS= reconnecting, then online again', async () => {
  const from = recorder.mark();
  assert.ok(pty.sim.kickStation(DISCONNECT_REASON.assocLeave));
  const disconnected = JSON.parse((await recorder.wait(event('disconnected'), { from })).text);
  assert.is(disconnected.reason, DISCONNECT_REASON.assocLeave);
  assert.type(disconnected.reason_text, 'string');
  // The same event for Home Assistant's event entity, with its type and the reason.
  const entityEvent = JSON.parse(
    (
      await recorder.wait((m) => m.topic === `${BASE}/events` && JSON.parse(m.text).event_type === 'disconnected', {
        from,
      })
    ).text,
  );
  assert.is(entityEvent.reason, DISCONNECT_REASON.assocLeave);
  await recorder.wait(
    state((s) => s.connectivity === 'reconnecting'),
    { from },
  );
  await notify.waitFor(status(/^reconnecting/));
  await recorder.wait(
    state((s) => s.connectivity === 'connected'),
    { from, timeoutMs: 10_000 },
  );
});

test('the coprocessor fields of the retained state come from the device: heartbeat, tx power, power save, link', async () => {
  // Heartbeats alone do not publish (they are volatile); the reconnect published after some.
  const retained = JSON.parse(
    (await recorder.wait(state((s) => s.connectivity === 'connected' && s.coprocessor.heartbeat_number !== null))).text,
  );
  const { coprocessor } = retained;
  assert.is(retained.connectivity, 'connected');
  assert.is(coprocessor.link, 'up');
  assert.ok(
    Number.isInteger(coprocessor.heartbeat_number) && coprocessor.heartbeat_number >= 0,
    JSON.stringify(coprocessor),
  );
  assert.ok(!Number.isNaN(Date.parse(coprocessor.last_heartbeat)));
  assert.is(coprocessor.tx_power_dbm, pty.sim.snapshot().txPower / 4); // the device's quarter-dBm units
  assert.is(coprocessor.power_save, 'min_modem');
  assert.is(retained.wifi.mac, STATION_MAC);
  const connected = await recorder.wait(
    state((s) => s.connectivity === 'connected' && !s.softap.active && s.coprocessor.heartbeat_number !== null),
  );
  assert.is(JSON.parse(connected.text).wifi.mode, 'station', 'the setup AP has stopped: the device says station');
  const shown = await haView(connected);
  assert.is(shown.connectivity.state, 'ON');
  assert.is(shown.coprocessor_link.state, 'ON');
  assert.is(shown.wifi_ssid.state, SIM_HOME.ssid);
  assert.is(shown.tx_power_level.state, String(coprocessor.tx_power_dbm));
  assert.is(shown.power_save.state, 'min_modem');
  assert.is(shown.coprocessor_firmware.state, 'documented');
  assert.is((shown.firmware.state as any).in_progress, false);
});

test('command tx_power: applied by the device, read back, in the state', async () => {
  const result = await command('tx_power', '{"dbm": 15}');
  assert.equal(result, { ok: true, dbm: 15 });
  assert.is(pty.sim.snapshot().txPower, 60);
  await recorder.wait(state((s) => s.coprocessor.tx_power_dbm === 15));
  assert.is((await command('tx_power', '{"dbm": 99}')).ok, false);
});

test('command power_save: applied by the device, in the state', async () => {
  assert.equal(await command('power_save', 'max_modem'), { ok: true, mode: 'max_modem' });
  assert.is(pty.sim.snapshot().powerSave, 2); // WIFI_PS_MAX_MODEM
  await recorder.wait(state((s) => s.coprocessor.power_save === 'max_modem'));
});

test('command scan: the networks the device sees', async () => {
  const result = await command('scan', '{}');
  assert.is(result.ok, true);
  assert.ok(result.networks.some((n: { ssid: string }) => n.ssid === SIM_HOME.ssid));
});

test('command setup_mode: the setup AP starts on the device (event setup_ap_started)', async () => {
  const from = recorder.mark();
  assert.equal(await command('setup_mode', ''), { ok: true });
  await recorder.wait(event('setup_ap_started'), { from, timeoutMs: 10_000 });
  assert.ok(pty.sim.snapshot().softAp, 'the soft AP runs on the device');
  // Asked while online: the station stays connected beside the setup AP (APSTA).
  await recorder.wait(
    state((s) => s.softap.active && s.softap.reason !== null),
    { from },
  );
});

test('command restart_coprocessor: the device is taken down and the whole start-up runs again', async () => {
  const inits = () => daemon.logs.filter((line) => line.msg === 'coprocessor initialised').length;
  const before = inits();
  assert.equal(await command('restart_coprocessor', 'PRESS'), { ok: true });
  await daemon.waitForLog(() => inits() > before);
});

test("the device resets → event coprocessor_reset; the owner's radio settings are applied again", async () => {
  const from = recorder.mark();
  const inits = () => daemon.logs.filter((line) => line.msg === 'coprocessor initialised').length;
  const before = inits();
  pty.sim.reset();
  await recorder.wait(event('coprocessor_reset'), { from, timeoutMs: 10_000 });
  await daemon.waitForLog(() => inits() > before);
  assert.is(pty.sim.snapshot().txPower, 60);
  assert.is(pty.sim.snapshot().powerSave, 2); // WIFI_PS_MAX_MODEM
  // Its boot announcement names the chip (the first boot came before the daemon opened the line).
  await recorder.wait(
    state((s) => s.coprocessor.firmware === 'ESP-Hosted-FG (ESP32)'),
    { from },
  );
});

test('the firmware hangs → device_lost: STATUS= and /healthz say so; it answers again → re-initialised', async () => {
  const from = recorder.mark();
  pty.sim.freeze(true);
  const lost = await recorder.wait(
    state((s) => s.connectivity === 'device_lost'),
    { from, timeoutMs: 10_000 },
  );
  const shown = await haView(lost);
  assert.is(JSON.parse(lost.text).coprocessor.link, 'up', 'the port stays open');
  assert.is(shown.coprocessor_link.state, 'OFF', 'but the chip does not answer');
  assert.is(shown.connectivity_state.state, 'device_lost');
  await notify.waitFor(status(/^coprocessor not answering/));
  const health = (await daemon.json('/healthz')).body;
  assert.is(health.status, 'degraded');
  assert.is(health.components.connectivity.status, 'degraded');
  const commandResult = await command('scan', '{}');
  assert.is(commandResult.ok, false);
  pty.sim.freeze(false);
  await recorder.wait(
    state((s) => s.connectivity !== 'device_lost'),
    { from, timeoutMs: 10_000 },
  );
  await notify.waitFor(status(/^(?!coprocessor not answering)/), 5000);
});

test.run();
