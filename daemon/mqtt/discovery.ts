/**
 * Home Assistant device-based discovery: one retained config with the device (`dev`), the origin
 * (`o`) and every entity (`cmps`), all reading the one `<base>/state` JSON through value templates
 * (the event entity reads `<base>/events`), so the box appears as a device with useful entities
 * without anyone writing YAML. What the device is (firmware, chip, generation, MAC, address)
 * shapes the config, so the bridge sends it again whenever it comes out different.
 */
import { powerSaveModesOf, TX_POWER_LEVELS_DBM } from '../device/commands.js';
import { CONNECTIVITY_STATES, type DeviceStateData } from '../device/state.js';
import { deviceIdFromMac, macFromDeviceId } from './device-id.js';
import { HA_EVENT_TYPES } from './events.js';
import { TX_POWER_RANGE } from './commands.js';
import type { Topics } from './topics.js';

export interface DiscoveryOptions {
  topics: Topics;
  version: string;
  /** The device as it is now: firmware, chip and generation, station MAC. */
  device: Readonly<DeviceStateData>;
  /** Where the dashboard is reached, shown by Home Assistant as "Visit"; null when unknown. */
  configurationUrl?: string | null;
  /** Adds the setup passphrase sensor; only when the owner turned its publishing on. */
  includeSetupPassphrase?: boolean;
}

type Component = Record<string, unknown> & { p: string };

/** Home Assistant turns the text "None" from a template into "unknown" for sensors and numbers. */
const value = (path: string) => `{{ value_json.${path} }}`;
const onWhen = (condition: string) => `{{ 'ON' if ${condition} else 'OFF' }}`;

/** HA's select treats a state of "none" as no selection, so the mode "none" is shown as "off". */
const powerSaveOption = (mode: string) => (mode === 'none' ? 'off' : mode);

/** The transmit powers offered: those the radio applies, within what the command accepts. */
export const TX_POWER_OPTIONS = TX_POWER_LEVELS_DBM.filter(
  (dbm) => dbm >= TX_POWER_RANGE.min && dbm <= TX_POWER_RANGE.max,
).map(String);

/**
 * The levels, plus the value the radio reports when it is none of them (a build's default, such as
 * 19.5 dBm): a select whose state is not an option would show nothing.
 */
function txPowerOptions(readBack: number | null): string[] {
  if (readBack === null || TX_POWER_OPTIONS.includes(String(readBack))) return TX_POWER_OPTIONS;
  return [...TX_POWER_OPTIONS.map(Number), readBack].sort((a, b) => a - b).map(String);
}

/**
 * The update entity's JSON (installed and latest version, progress): the latest is the owner's
 * firmware file when it is a newer release than the installed one (or one the two versions cannot
 * place), else the installed one (nothing to install). A failed install
 * stays readable in the release summary until the next one.
 */
const UPDATE_TEMPLATE = [
  '{% set c = value_json.coprocessor %}',
  '{% set installed = c.firmware_version or c.firmware %}',
  "{% set busy = c.ota.phase in ['writing', 'rebooting'] %}",
  '{% set offered = c.firmware_file and c.firmware_file.newer != false %}',
  '{{ {',
  "'installed_version': installed,",
  "'latest_version': c.firmware_file.version if offered else installed,",
  "'title': c.firmware_file.project if c.firmware_file else 'ESP-Hosted-FG',",
  "'release_summary': ('The last install failed: ' ~ c.ota.error) if c.ota.phase == 'failed' else",
  "(c.firmware_file.name ~ ' (' ~ c.firmware_file.bytes ~ ' bytes) on the box' if c.firmware_file else None),",
  "'in_progress': busy,",
  "'update_percentage': c.ota.percent if busy else None",
  '} | to_json }}',
].join(' ');

function components(
  topics: Topics,
  device: Readonly<DeviceStateData>,
  includeSetupPassphrase: boolean,
): Record<string, Component> {
  const diagnostic = { entity_category: 'diagnostic' };
  const config = { entity_category: 'config' };
  const list: Record<string, Component> = {
    connectivity: {
      p: 'binary_sensor',
      name: 'Connectivity',
      device_class: 'connectivity',
      ...diagnostic,
      value_template: onWhen("value_json.connectivity == 'connected'"),
    },
    connectivity_state: {
      p: 'sensor',
      name: 'Connectivity state',
      device_class: 'enum',
      options: [...CONNECTIVITY_STATES],
      ...diagnostic,
      value_template: value('connectivity'),
    },
    wifi_signal: {
      p: 'sensor',
      name: 'Wi-Fi signal',
      device_class: 'signal_strength',
      unit_of_measurement: 'dBm',
      state_class: 'measurement',
      ...diagnostic,
      value_template: value('wifi.rssi'),
    },
    // No unit and no state_class: HA shows the address as text (the prefix length left off).
    ip_address: {
      p: 'sensor',
      name: 'IP address',
      icon: 'mdi:ip-network',
      ...diagnostic,
      value_template: "{{ value_json.network.address.split('/')[0] if value_json.network else None }}",
    },
    wifi_ssid: {
      p: 'sensor',
      name: 'Wi-Fi network',
      icon: 'mdi:wifi',
      ...diagnostic,
      value_template: value('wifi.ssid'),
    },
    wifi_mode: {
      p: 'sensor',
      name: 'Wi-Fi mode',
      device_class: 'enum',
      options: ['none', 'station', 'softap', 'apsta'],
      icon: 'mdi:wifi-cog',
      ...diagnostic,
      value_template: value('wifi.mode'),
    },
    // The count is the state; the networks themselves are attributes automations can read.
    wifi_networks: {
      p: 'sensor',
      name: 'Networks in range',
      icon: 'mdi:wifi-marker',
      state_class: 'measurement',
      ...diagnostic,
      value_template: '{{ value_json.scan.networks | length if value_json.scan.at else None }}',
      json_attributes_topic: topics.state,
      json_attributes_template:
        "{{ {'networks': value_json.scan.networks, 'scanned_at': value_json.scan.at} | to_json }}",
    },
    setup_ap_stations: {
      p: 'sensor',
      name: 'Setup AP stations',
      icon: 'mdi:cellphone-wireless',
      state_class: 'measurement',
      ...diagnostic,
      value_template: '{{ value_json.softap.stations | length }}',
    },
    coprocessor_link: {
      p: 'binary_sensor',
      name: 'Coprocessor link',
      device_class: 'connectivity',
      ...diagnostic,
      value_template: onWhen('value_json.coprocessor.responding'),
    },
    coprocessor_resets: {
      p: 'sensor',
      name: 'Coprocessor resets',
      icon: 'mdi:restart-alert',
      state_class: 'total_increasing',
      ...diagnostic,
      value_template: value('coprocessor.resets'),
      json_attributes_topic: topics.state,
      json_attributes_template: "{{ {'last_reset': value_json.coprocessor.last_reset} | to_json }}",
    },
    // On when the firmware is of another release than the driver's (which then refuses it).
    firmware_release: {
      p: 'binary_sensor',
      name: 'Firmware release',
      device_class: 'problem',
      ...diagnostic,
      value_template: onWhen("value_json.coprocessor.release.status == 'mismatch'"),
      json_attributes_topic: topics.state,
      json_attributes_template:
        "{{ {'driver': value_json.coprocessor.release.driver, 'firmware': value_json.coprocessor.release.firmware, 'detail': value_json.coprocessor.release.detail} | to_json }}",
    },
    tx_power_level: {
      p: 'select',
      name: 'Transmit power (dBm)',
      command_topic: topics.command('tx_power'),
      options: txPowerOptions(device.coprocessor.tx_power_dbm),
      icon: 'mdi:antenna',
      ...config,
      // What the radio reports back, which is what it applies.
      value_template:
        "{{ '%g' | format(value_json.coprocessor.tx_power_dbm) if value_json.coprocessor.tx_power_dbm is number else None }}",
    },
    power_save: {
      p: 'select',
      name: 'Power save',
      command_topic: topics.command('power_save'),
      options: powerSaveModesOf(device.coprocessor.firmware_generation).map(powerSaveOption),
      icon: 'mdi:leaf',
      ...config,
      value_template:
        "{{ 'off' if value_json.coprocessor.power_save == 'none' else value_json.coprocessor.power_save }}",
    },
    setup_mode: {
      p: 'button',
      name: 'Start setup mode',
      command_topic: topics.command('setup_mode'),
      icon: 'mdi:access-point',
      ...config,
    },
    rescan: {
      p: 'button',
      name: 'Scan for networks',
      command_topic: topics.command('scan'),
      icon: 'mdi:wifi-refresh',
      ...diagnostic,
    },
    restart_coprocessor: {
      p: 'button',
      name: 'Restart coprocessor',
      device_class: 'restart',
      command_topic: topics.command('restart_coprocessor'),
      ...config,
    },
    firmware: {
      p: 'update',
      name: 'Coprocessor firmware',
      device_class: 'firmware',
      command_topic: topics.command('install_firmware'),
      payload_install: 'install',
      ...config,
      value_template: UPDATE_TEMPLATE,
    },
    events: {
      p: 'event',
      name: 'Events',
      state_topic: topics.events,
      event_types: [...HA_EVENT_TYPES],
      icon: 'mdi:bell-ring',
      ...diagnostic,
    },
    firmware_update_progress: {
      p: 'sensor',
      name: 'Firmware update progress',
      unit_of_measurement: '%',
      icon: 'mdi:progress-upload',
      ...diagnostic,
      value_template: value('coprocessor.ota.percent'),
    },
    coprocessor_firmware: {
      p: 'sensor',
      name: 'Coprocessor firmware generation',
      device_class: 'enum',
      options: ['documented', 'current'],
      icon: 'mdi:chip',
      ...diagnostic,
      value_template: value('coprocessor.firmware_generation'),
    },
    unread_notifications: {
      p: 'sensor',
      name: 'Unread notifications',
      icon: 'mdi:bell',
      state_class: 'measurement',
      value_template: value('instance.unread_notifications'),
    },
    pending_follow_requests: {
      p: 'sensor',
      name: 'Pending follow requests',
      icon: 'mdi:account-clock',
      state_class: 'measurement',
      value_template: value('instance.pending_follow_requests'),
    },
    accounts: {
      p: 'sensor',
      name: 'Accounts',
      icon: 'mdi:account-multiple',
      state_class: 'total',
      value_template: value('instance.accounts'),
    },
    statuses: {
      p: 'sensor',
      name: 'Posts',
      icon: 'mdi:message-text',
      state_class: 'total',
      value_template: value('instance.statuses'),
    },
    storage_problem: {
      p: 'binary_sensor',
      name: 'Storage',
      device_class: 'problem',
      ...diagnostic,
      value_template: onWhen("value_json.storage.status in ['low', 'full']"),
    },
    free_storage: {
      p: 'sensor',
      name: 'Free storage',
      device_class: 'data_size',
      unit_of_measurement: 'MB',
      state_class: 'measurement',
      suggested_display_precision: 0,
      ...diagnostic,
      value_template:
        '{{ (value_json.storage.free_bytes / 1048576) | round(0) if value_json.storage.free_bytes is number else None }}',
    },
    certificate_expires: {
      p: 'sensor',
      name: 'Certificate expires',
      device_class: 'timestamp',
      ...diagnostic,
      value_template:
        '{{ value_json.reachability.certificate.not_after if value_json.reachability.certificate else None }}',
    },
    // On (a problem) when the owner asked for reachability and a step failed.
    reachable_problem: {
      p: 'binary_sensor',
      name: 'Reachable',
      device_class: 'problem',
      ...diagnostic,
      value_template: onWhen(
        "value_json.reachability.name and 'failed' in [value_json.reachability.steps.dns.state, value_json.reachability.steps.port_mapping.state, value_json.reachability.steps.certificate.state, value_json.reachability.steps.switch.state, value_json.reachability.steps.check.state]",
      ),
    },
    version: { p: 'sensor', name: 'Version', icon: 'mdi:tag', ...diagnostic, value_template: value('daemon.version') },
  };
  if (includeSetupPassphrase) {
    list.setup_passphrase = {
      p: 'sensor',
      name: 'Setup passphrase',
      icon: 'mdi:key-wifi',
      ...diagnostic,
      value_template: value('softap.setup_passphrase'),
    };
  }
  const prefix = `nestbox_${topics.deviceId}`;
  for (const [key, component] of Object.entries(list)) component.unique_id = `${prefix}_${key}`;
  if (device.connectivity === 'no_device') return { ...withoutDeviceEntities(list), ...RETIRED_COMPONENTS };
  return { ...list, ...RETIRED_COMPONENTS };
}

/** What an instance without a box still has to show: its counts, its storage, its address, its version. */
const INSTANCE_ENTITIES: ReadonlySet<string> = new Set([
  'unread_notifications',
  'pending_follow_requests',
  'accounts',
  'statuses',
  'storage_problem',
  'free_storage',
  'certificate_expires',
  'reachable_problem',
  'version',
]);

/**
 * An instance without a box (NESTBOX_COPROC=none): its device entities are named by platform alone,
 * which makes Home Assistant remove those an earlier start on a box announced.
 */
function withoutDeviceEntities(list: Record<string, Component>): Record<string, Component> {
  return Object.fromEntries(
    Object.entries(list).map(([key, component]) => [key, INSTANCE_ENTITIES.has(key) ? component : { p: component.p }]),
  );
}

/**
 * Entities earlier versions announced that no longer exist in that form. Home Assistant keeps an
 * entity it once discovered until the device's config names it with its platform alone, so each
 * stays listed that way: transmit power was a number before the radio's own levels made it a select.
 */
const RETIRED_COMPONENTS: Record<string, Component> = {
  tx_power: { p: 'number' },
};

/** The coprocessor firmware as the device names it: its version, or the generation without one. */
function firmwareName(coprocessor: DeviceStateData['coprocessor']): string | null {
  if (coprocessor.firmware_version) return coprocessor.firmware_version;
  if (coprocessor.firmware_generation === 'documented') return 'ESP-Hosted-FG (documented protocol)';
  return null;
}

export function discoveryPayload(options: DiscoveryOptions): Record<string, unknown> {
  const { topics, version, device: state } = options;
  const device: Record<string, unknown> = {
    ids: [`nestbox_${topics.deviceId}`],
    name: 'Nestbox',
    mf: 'Nestbox',
    mdl: 'Nestbox home appliance',
    sn: topics.deviceId,
  };
  // A connection only for a MAC the device told (the id may come from the machine id instead).
  const mac = deviceIdFromMac(state.wifi.mac);
  if (mac) device.cns = [['mac', macFromDeviceId(mac)]];
  const firmware = firmwareName(state.coprocessor);
  if (firmware) device.sw = firmware;
  if (state.coprocessor.chip) device.hw = state.coprocessor.chip;
  if (state.connectivity === 'no_device') device.mdl = 'Nestbox instance (no box)';
  // The box is its own support: its dashboard shows what is wrong and how to fix it.
  const origin: Record<string, unknown> = { name: 'Nestbox', sw: version };
  if (options.configurationUrl) device.cu = origin.url = options.configurationUrl;
  return {
    dev: device,
    o: origin,
    availability_topic: topics.availability,
    payload_available: 'online',
    payload_not_available: 'offline',
    state_topic: topics.state,
    qos: 1,
    cmps: components(topics, state, options.includeSetupPassphrase ?? false),
  };
}
