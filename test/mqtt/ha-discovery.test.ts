/**
 * The discovery config checked against Home Assistant's MQTT discovery rules (ha-schema.ts), in
 * every shape the device gives it, and what each entity shows (templates rendered by Jinja2, as
 * Home Assistant renders them) for the device's states: starting, link lost, setup, connected, OTA.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DeviceState, initialDeviceState, type DeviceStatePatch } from '../../daemon/device/state.js';
import { dashboardUrl } from '../../daemon/mqtt/dashboard-url.js';
import { discoveryPayload } from '../../daemon/mqtt/discovery.js';
import { statePayload } from '../../daemon/mqtt/state-payload.js';
import { Topics } from '../../daemon/mqtt/topics.js';
import { homeAssistantView } from '../helpers/ha-templates.js';
import { discoveryProblems, entitiesAfter } from './ha-schema.js';

const topics = new Topics('nestbox', 'a0b1c2d3e4f5', 'homeassistant');

function deviceWith(...patches: DeviceStatePatch[]): DeviceState {
  const device = new DeviceState(initialDeviceState('1.2.3', 'serial:/dev/ttyUSB0'));
  for (const patch of patches) device.update(patch);
  return device;
}

const CONNECTED: DeviceStatePatch = {
  connectivity: 'connected',
  network: { address: '10.77.0.23/24', gateway: '10.77.0.1', dns: [], mac: null, lease_expires_at: null },
  wifi: { mode: 'station', ssid: 'Home', bssid: 'aa:bb:cc:00:00:01', rssi: -52, channel: 6, mac: 'a0:b1:c2:d3:e4:f5' },
  coprocessor: {
    link: 'up',
    responding: true,
    tx_power_dbm: 8.5,
    power_save: 'none',
    firmware: 'ESP-Hosted-FG FG-1.0.0.0.0 (ESP32)',
    firmware_version: 'FG-1.0.0.0.0',
    chip: 'ESP32',
    firmware_generation: 'current',
  },
  scan: {
    at: '2026-11-26T10:00:00.000Z',
    networks: [{ ssid: 'Home', bssid: 'aa:bb:cc:00:00:01', rssi: -52, channel: 6, security: 'wpa2_psk' }],
  },
};

function config(device: DeviceState, extra: { passphrase?: boolean } = {}) {
  return discoveryPayload({
    topics,
    version: '1.2.3',
    device: device.get(),
    configurationUrl: dashboardUrl(
      { baseUrl: 'http://localhost:8080', httpPort: 8080, mdnsHostname: null },
      device.get(),
    ),
    includeSetupPassphrase: extra.passphrase ?? false,
  }) as { state_topic: string; cmps: Record<string, Record<string, unknown>> } & Record<string, any>;
}

test('the checker refuses what Home Assistant refuses', () => {
  const good = config(deviceWith(CONNECTED));
  assert.equal(discoveryProblems(good), []);
  const broken = structuredClone(good);
  delete broken.cmps.wifi_signal.unique_id;
  broken.cmps.wifi_signal.unit_of_measurement = '%';
  broken.cmps.connectivity_state.state_class = 'measurement';
  broken.cmps.connectivity.entity_category = 'config';
  broken.cmps.power_save.options = [];
  broken.cmps.rescan.device_class = 'firmware';
  broken.cmps.version.colour = 'red';
  broken.cmps.events.event_types = [];
  broken.dev.cu = 'http://localhost:8080/dashboard';
  delete broken.o.name;
  delete broken.availability_topic;
  const problems = discoveryProblems(broken).join('\n');
  for (const expected of [
    'wifi_signal: unique_id is required',
    "wifi_signal: unit % is not one of signal_strength's",
    'connectivity_state: a enum sensor takes no state_class',
    'connectivity: a binary_sensor cannot be a config entity',
    'power_save: select options must be distinct strings',
    'rescan: button has no device class firmware',
    'version: sensor takes no colour',
    'events: event_types must be distinct strings',
    "device: configuration_url points at the viewer's own machine",
    'origin: name is required',
    'root: no availability',
  ])
    assert.ok(problems.includes(expected), `${expected}\nin:\n${problems}`);
});

test('every discovery config the device can give follows the rules', () => {
  const shapes = {
    'never answered, no MAC': deviceWith({ connectivity: 'device_lost' }),
    'documented firmware, setup mode': deviceWith({
      connectivity: 'setup_ap',
      wifi: { mode: 'apsta', mac: 'a0:b1:c2:d3:e4:f5' },
      coprocessor: {
        link: 'up',
        responding: true,
        firmware: 'ESP-Hosted-FG (ESP32)',
        chip: 'ESP32',
        firmware_generation: 'documented',
      },
    }),
    'current firmware, connected, a firmware file': deviceWith(CONNECTED, {
      coprocessor: {
        firmware_file: { version: 'FG-1.1.0.0.0', project: 'network_adapter', name: 'fw.bin', bytes: 900_000 },
      },
    }),
  };
  for (const [name, device] of Object.entries(shapes)) {
    for (const passphrase of [false, true])
      assert.equal(
        discoveryProblems(config(device, { passphrase })),
        [],
        `${name}${passphrase ? ' (passphrase on)' : ''}`,
      );
  }
});

test('the device block: firmware version and chip, the dashboard by address (never localhost), the origin', () => {
  const connected = config(deviceWith(CONNECTED));
  assert.is(connected.dev.sw, 'FG-1.0.0.0.0');
  assert.is(connected.dev.hw, 'ESP32');
  assert.is(connected.dev.cu, 'http://10.77.0.23:8080/dashboard');
  assert.equal(connected.dev.cns, [['mac', 'a0:b1:c2:d3:e4:f5']]);
  assert.equal(connected.o, { name: 'Nestbox', sw: '1.2.3', url: 'http://10.77.0.23:8080/dashboard' });
  const lost = config(deviceWith({ connectivity: 'device_lost' }));
  assert.is(lost.dev.cu, undefined, 'no address known: no link rather than localhost');
  assert.is(lost.dev.cns, undefined, 'no MAC told: no MAC connection');
  assert.is(lost.dev.sw, undefined);
  const documented = config(deviceWith({ coprocessor: { firmware_generation: 'documented' } }));
  assert.is(documented.dev.sw, 'ESP-Hosted-FG (documented protocol)');
  const named = discoveryPayload({
    topics,
    version: '1',
    device: deviceWith().get(),
    configurationUrl: dashboardUrl(
      { baseUrl: 'http://127.0.0.1:8080', httpPort: 80, mdnsHostname: 'nestbox' },
      deviceWith().get(),
    ),
  }) as any;
  assert.is(named.dev.cu, 'http://nestbox.local/dashboard');
});

test('power save offers only what the firmware accepts; transmit power only the levels the radio applies', async () => {
  const current = config(deviceWith(CONNECTED));
  assert.equal(current.cmps.power_save.options, ['off', 'min_modem', 'max_modem']);
  const documented = config(deviceWith({ coprocessor: { firmware_generation: 'documented' } }));
  assert.equal(documented.cmps.power_save.options, ['min_modem', 'max_modem']);
  assert.equal(current.cmps.tx_power_level.options, ['2', '5', '7', '8.5', '11', '13', '14', '15', '16.5', '18', '20']);
  // A read-back value outside the levels (a build's default) is offered too, so the select shows it.
  const odd = config(deviceWith(CONNECTED, { coprocessor: { tx_power_dbm: 19.5 } }));
  assert.equal(odd.cmps.tx_power_level.options, [
    '2',
    '5',
    '7',
    '8.5',
    '11',
    '13',
    '14',
    '15',
    '16.5',
    '18',
    '19.5',
    '20',
  ]);
  assert.is((await view(deviceWith(CONNECTED, { coprocessor: { tx_power_dbm: 19.5 } }))).tx_power_level.state, '19.5');
});

test('an entity of an earlier version is removed from Home Assistant, not left unavailable beside its successor', () => {
  // What versions before the select announced for transmit power.
  const earlier = {
    dev: { ids: ['nestbox_a0b1c2d3e4f5'] },
    o: { name: 'Nestbox' },
    cmps: {
      tx_power: { p: 'number', command_topic: 'nestbox/a0b1c2d3e4f5/command/tx_power', min: 2, max: 20, step: 0.25 },
    },
  };
  const now = config(deviceWith(CONNECTED));
  const held = entitiesAfter([earlier, now]);
  assert.not.ok(held.includes('number tx_power'), 'the old number is gone');
  assert.ok(held.includes('select tx_power_level'));
  assert.equal(held, entitiesAfter([now]), 'the same entities as a Home Assistant that never knew the old one');
});

test('HA view, OTA: a file of the installed release or an older one offers nothing; one the versions cannot place is offered', async () => {
  const latest = async (version: string) => {
    const file = { version, project: 'network_adapter', name: 'fw.bin', bytes: 900_000 };
    const shown = await view(deviceWith(CONNECTED, { coprocessor: { firmware_file: file } }));
    return (shown.firmware.state as { latest_version: string }).latest_version;
  };
  assert.is(await latest('1.0.0'), 'FG-1.0.0.0.0', 'the same release, written as the build names it');
  assert.is(await latest('v0.9.3'), 'FG-1.0.0.0.0', 'an older release');
  assert.is(await latest('1.10.0'), '1.10.0');
  assert.is(await latest('v1.0.0-4-gabc1234'), 'v1.0.0-4-gabc1234');
});

async function view(device: DeviceState) {
  return homeAssistantView(config(device), statePayload(device.get()));
}

test('HA view, link lost: the coprocessor link is off, connectivity device_lost, no version', async () => {
  const device = deviceWith(CONNECTED, {
    connectivity: 'device_lost',
    network: null,
    coprocessor: { link: 'up', responding: false },
  });
  const shown = await view(device);
  assert.is(shown.coprocessor_link.state, 'OFF', 'the port is open, but the chip does not answer');
  assert.is(shown.connectivity.state, 'OFF');
  assert.is(shown.connectivity_state.state, 'device_lost');
  assert.is(shown.ip_address.state, 'None');
});

test('HA view, setup mode: state setup_ap, the mode apsta, the stations counted, the scan as attributes', async () => {
  const device = deviceWith(CONNECTED, {
    connectivity: 'setup_ap',
    wifi: { mode: 'apsta' },
    softap: {
      active: true,
      ssid: 'Nestbox-E4F5',
      channel: 6,
      stations: [{ mac: '02:00:00:00:00:09', rssi: -40 }],
      reason: 'asked',
    },
  });
  const shown = await view(device);
  assert.is(shown.connectivity_state.state, 'setup_ap');
  assert.is(shown.wifi_mode.state, 'apsta');
  assert.is(shown.setup_ap_stations.state, '1');
  assert.is(shown.wifi_networks.state, '1');
  assert.equal(shown.wifi_networks.attributes, {
    networks: [{ ssid: 'Home', bssid: 'aa:bb:cc:00:00:01', rssi: -52, channel: 6, security: 'wpa2_psk' }],
    scanned_at: '2026-11-26T10:00:00.000Z',
  });
});

test('HA view, connected: link on, signal, address, tx power and power save as read back, no update without a file', async () => {
  const shown = await view(deviceWith(CONNECTED));
  assert.is(shown.coprocessor_link.state, 'ON');
  assert.is(shown.connectivity.state, 'ON');
  assert.is(shown.wifi_signal.state, '-52');
  assert.is(shown.ip_address.state, '10.77.0.23');
  assert.is(shown.tx_power_level.state, '8.5');
  assert.is(shown.power_save.state, 'off');
  assert.is(shown.coprocessor_firmware.state, 'current');
  assert.equal(shown.firmware.state, {
    installed_version: 'FG-1.0.0.0.0',
    latest_version: 'FG-1.0.0.0.0',
    title: 'ESP-Hosted-FG',
    release_summary: null,
    in_progress: false,
    update_percentage: null,
  });
});

test('HA view, OTA: a file offers its version; writing shows progress; a failure shows in the summary', async () => {
  const file = { version: 'FG-1.1.0.0.0', project: 'network_adapter', name: 'fw.bin', bytes: 900_000 };
  const offered = await view(deviceWith(CONNECTED, { coprocessor: { firmware_file: file } }));
  assert.equal(offered.firmware.state, {
    installed_version: 'FG-1.0.0.0.0',
    latest_version: 'FG-1.1.0.0.0',
    title: 'network_adapter',
    release_summary: 'fw.bin (900000 bytes) on the box',
    in_progress: false,
    update_percentage: null,
  });
  const writing = await view(
    deviceWith(CONNECTED, {
      coprocessor: {
        firmware_file: file,
        ota: { phase: 'writing', bytes: 450_000, total: 900_000, percent: 50, error: null },
      },
    }),
  );
  assert.is((writing.firmware.state as any).in_progress, true);
  assert.is((writing.firmware.state as any).update_percentage, 50);
  const failed = await view(
    deviceWith(CONNECTED, {
      coprocessor: {
        firmware_file: file,
        ota: { phase: 'failed', bytes: 4000, total: 900_000, percent: 0, error: 'OTAWrite refused' },
      },
    }),
  );
  assert.is((failed.firmware.state as any).in_progress, false);
  assert.is((failed.firmware.state as any).release_summary, 'The last install failed: OTAWrite refused');
});

test('HA view, chip recovery and release: resets counted with the last one as attributes; a release mismatch is a problem', async () => {
  const lastReset = {
    at: '2026-12-05T10:00:00.000Z',
    reason: 'the coprocessor had not answered for 120 s',
    method: 'module_reload',
    ok: true,
    error: null,
  };
  const detail = 'Flash firmware FG-1.0.0.0.0';
  const device = deviceWith(CONNECTED, {
    coprocessor: {
      resets: 2,
      last_reset: lastReset,
      release: { status: 'mismatch', driver: 'FG-1.0.0.0.0', firmware: 'FG-1.0.1.0.0', detail },
    },
  });
  const shown = await view(device);
  assert.is(shown.coprocessor_resets.state, '2');
  assert.equal(shown.coprocessor_resets.attributes, { last_reset: lastReset });
  assert.is(shown.firmware_release.state, 'ON');
  assert.equal(shown.firmware_release.attributes, { driver: 'FG-1.0.0.0.0', firmware: 'FG-1.0.1.0.0', detail });
  const matched = await view(
    deviceWith(CONNECTED, {
      coprocessor: { release: { status: 'match', driver: 'FG-1.0.0.0.0', firmware: 'FG-1.0.0.0.0', detail: null } },
    }),
  );
  assert.is(matched.firmware_release.state, 'OFF');
  assert.is(matched.coprocessor_resets.state, '0');
  assert.is((await view(deviceWith(CONNECTED))).firmware_release.state, 'OFF', 'no release configured: no problem');
});

test.run();
