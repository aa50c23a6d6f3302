/** The pure parts of the MQTT bridge: topics, device id, payload validation, state JSON, config. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, describeConfig, loadConfig } from '../../daemon/config.js';
import { initialDeviceState } from '../../daemon/device/state.js';
import { parsePowerSave, parseTxPower, runCommand } from '../../daemon/mqtt/commands.js';
import { Backoff, describeBrokerError } from '../../daemon/mqtt/connection.js';
import { deviceIdFromMac, macFromDeviceId } from '../../daemon/mqtt/device-id.js';
import { onlyVolatile, statePayload } from '../../daemon/mqtt/state-payload.js';
import { Topics } from '../../daemon/mqtt/topics.js';

test('the device id is the station MAC as 12 lowercase hex digits', () => {
  assert.is(deviceIdFromMac('A0:B1:C2:D3:E4:F5'), 'a0b1c2d3e4f5');
  assert.is(deviceIdFromMac('a0-b1-c2-d3-e4-f5'), 'a0b1c2d3e4f5');
  assert.is(deviceIdFromMac('a0b1c2d3e4f5'), 'a0b1c2d3e4f5');
  assert.is(deviceIdFromMac('00:00:00:00:00:00'), null);
  assert.is(deviceIdFromMac('ff:ff:ff:ff:ff:ff'), null);
  assert.is(deviceIdFromMac('a0:b1:c2:d3:e4'), null);
  assert.is(deviceIdFromMac(null), null);
  assert.is(macFromDeviceId('a0b1c2d3e4f5'), 'a0:b1:c2:d3:e4:f5');
});

test('topics live under <prefix>/<device_id>; command names are one level', () => {
  const topics = new Topics('house/nestbox', 'a0b1c2d3e4f5', 'homeassistant');
  assert.is(topics.availability, 'house/nestbox/a0b1c2d3e4f5/availability');
  assert.is(topics.state, 'house/nestbox/a0b1c2d3e4f5/state');
  assert.is(topics.event('disconnected'), 'house/nestbox/a0b1c2d3e4f5/event/disconnected');
  assert.is(topics.commandResult('scan'), 'house/nestbox/a0b1c2d3e4f5/command/scan/result');
  assert.is(topics.commandName('house/nestbox/a0b1c2d3e4f5/command/tx_power'), 'tx_power');
  assert.is(topics.commandName('house/nestbox/a0b1c2d3e4f5/command/tx_power/result'), null);
  assert.is(topics.commandName('house/nestbox/other/command/scan'), null);
  assert.is(topics.discoveryConfig, 'homeassistant/device/a0b1c2d3e4f5/config');
  assert.is(topics.homeAssistantStatus, 'homeassistant/status');
  const off = new Topics('nestbox', 'a0b1c2d3e4f5', null);
  assert.is(off.discoveryConfig, null);
  assert.is(off.homeAssistantStatus, null);
});

test('tx_power takes {"dbm": n} or a bare number from 2 to 20', () => {
  assert.equal(parseTxPower(Buffer.from('{"dbm": 15}')), { ok: true, value: 15 });
  assert.equal(parseTxPower(Buffer.from(' 19.5 ')), { ok: true, value: 19.5 });
  assert.is(parseTxPower(Buffer.from('1')).ok, false);
  assert.is(parseTxPower(Buffer.from('21')).ok, false);
  assert.is(parseTxPower(Buffer.from('NaN')).ok, false);
  assert.is(parseTxPower(Buffer.from('')).ok, false);
  assert.is(parseTxPower(Buffer.from('{"dbm": true}')).ok, false);
});

test('power_save takes {"mode": name} or a bare name; off means none', () => {
  assert.equal(parsePowerSave(Buffer.from('{"mode":"max_modem"}')), { ok: true, value: 'max_modem' });
  assert.equal(parsePowerSave(Buffer.from('none')), { ok: true, value: 'none' });
  assert.equal(parsePowerSave(Buffer.from('"min_modem"')), { ok: true, value: 'min_modem' });
  assert.equal(parsePowerSave(Buffer.from('off')), { ok: true, value: 'none' });
  assert.is(parsePowerSave(Buffer.from('MAX')).ok, false);
});

test('a command that never answers gives a clear timeout error', async () => {
  const never = new Promise<never>(() => undefined);
  const commands = {
    scan: () => never,
    enterSetupMode: () => never,
    setTxPower: () => never,
    setPowerSave: () => never,
    restartCoprocessor: () => never,
    installFirmware: () => never,
  };
  const result = await runCommand('scan', Buffer.from(''), { commands, timeoutMs: 20 });
  assert.equal(result, { ok: false, error: 'scan got no answer within 0 s' });
});

test('the state JSON carries a fresh uptime and no field named like a secret', () => {
  const state = initialDeviceState('1.0.0', 'sim', new Date('2026-01-01T00:00:00Z'));
  const withSecret = { ...state, softap: { ...state.softap, password: 'hunter2' } } as typeof state;
  const json = JSON.parse(statePayload(withSecret, { now: new Date('2026-01-01T00:01:30Z') }));
  assert.is(json.daemon.uptime_s, 90);
  assert.is(json.connectivity, 'starting');
  assert.is(json.softap.password, undefined);
  assert.is(json.softap.setup_passphrase, undefined);
  const shared = JSON.parse(statePayload(state, { setupPassphrase: 'correct-horse' }));
  assert.is(shared.softap.setup_passphrase, 'correct-horse');
});

test('heartbeat, uptime and signal changes alone are volatile; anything else is not', () => {
  assert.ok(onlyVolatile(['coprocessor.heartbeat_number', 'coprocessor.last_heartbeat']));
  assert.ok(onlyVolatile(['daemon.uptime_s', 'wifi.rssi']));
  assert.not.ok(onlyVolatile(['coprocessor.heartbeat_number', 'connectivity']));
  assert.not.ok(onlyVolatile(['instance.unread_notifications']));
});

test('reconnect backoff doubles from the minimum and never exceeds 5 s', () => {
  const backoff = new Backoff(500, 5000);
  assert.equal(
    [backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next()],
    [500, 1000, 2000, 4000, 5000, 5000],
  );
  assert.is(backoff.reset(), 500);
  assert.is(backoff.next(), 1000);
});

test('broker errors read as plain words', () => {
  assert.match(
    describeBrokerError(Object.assign(new Error('Connection refused: Not authorized'), { code: 5 })),
    /refused the login \(Not authorized\)/,
  );
  assert.match(
    describeBrokerError(Object.assign(new Error('Connection refused: Bad User Name or Password'), { code: 134 })),
    /refused the login/,
  );
  assert.match(
    describeBrokerError(
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', address: '127.0.0.1', port: 1 }),
    ),
    /connection refused at 127\.0\.0\.1:1/,
  );
  assert.is(
    describeBrokerError(new Error('connack timeout')),
    'the broker did not answer the connection request in time',
  );
});

test('MQTT config keys: protocol, client id, TLS files, refresh schedule; the URL login is never shown', () => {
  const config = loadConfig({
    env: {
      NESTBOX_MQTT_URL: 'mqtts://box:pw-in-url@broker.lan:8883',
      NESTBOX_MQTT_PROTOCOL: '5',
      NESTBOX_MQTT_CLIENT_ID: 'my-box',
      NESTBOX_MQTT_CA_FILE: '/etc/nestbox/ca.pem',
      NESTBOX_MQTT_REFRESH_SCHEDULE: '*/5 * * * *',
    },
  });
  assert.is(config.mqttProtocol, 5);
  assert.is(config.mqttClientId, 'my-box');
  assert.is(config.mqttCaFile, '/etc/nestbox/ca.pem');
  assert.is(config.mqttRefreshSchedule, '*/5 * * * *');
  assert.is(config.mqttPublishSetupPassphrase, false);
  assert.not.match(JSON.stringify(describeConfig(config)), /pw-in-url/);
  const defaults = loadConfig({ env: {} });
  assert.is(defaults.mqttProtocol, 4);
  assert.is(defaults.mqttRefreshSchedule, '* * * * *');
  assert.is(loadConfig({ env: { NESTBOX_MQTT_PROTOCOL: '3.1.1' } }).mqttProtocol, 4);
  for (const [name, value] of [
    ['NESTBOX_MQTT_PROTOCOL', '6'],
    ['NESTBOX_MQTT_CLIENT_ID', 'has space'],
    ['NESTBOX_MQTT_REFRESH_SCHEDULE', 'often'],
  ]) {
    assert.throws(
      () => loadConfig({ env: { [name]: value } }),
      (error: unknown) => error instanceof ConfigError && error.key === name,
    );
  }
});

test.run();
