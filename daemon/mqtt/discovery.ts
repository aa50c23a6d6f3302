/**
 * Home Assistant device-based discovery: one retained config with the device (`dev`), the origin
 * (`o`) and every entity (`cmps`), all reading the one `<base>/state` JSON through value templates,
 * so the box appears as a device with useful entities without anyone writing YAML.
 */
import { CONNECTIVITY_STATES } from '../device/state.js';
import { macFromDeviceId } from './device-id.js';
import type { Topics } from './topics.js';

export interface DiscoveryOptions {
  topics: Topics;
  version: string;
  /** The box's web address, shown by Home Assistant as "Visit". */
  configurationUrl?: string | null;
  /** Adds the setup passphrase sensor; only when the owner turned its publishing on. */
  includeSetupPassphrase?: boolean;
}

type Component = Record<string, unknown> & { p: string };

/** Home Assistant turns the text "None" from a template into "unknown" for sensors and numbers. */
const value = (path: string) => `{{ value_json.${path} }}`;
const onWhen = (condition: string) => `{{ 'ON' if ${condition} else 'OFF' }}`;

/** HA's select treats a state of "none" as no selection, so the mode "none" is shown as "off". */
export const POWER_SAVE_OPTIONS = ['off', 'min_modem', 'max_modem'] as const;

function components(topics: Topics, includeSetupPassphrase: boolean): Record<string, Component> {
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
      value_template: onWhen("value_json.coprocessor.link == 'up'"),
    },
    tx_power: {
      p: 'number',
      name: 'Transmit power',
      command_topic: topics.command('tx_power'),
      unit_of_measurement: 'dBm',
      min: 2,
      max: 20,
      step: 0.25,
      mode: 'box',
      icon: 'mdi:antenna',
      ...config,
      value_template: value('coprocessor.tx_power_dbm'),
    },
    power_save: {
      p: 'select',
      name: 'Power save',
      command_topic: topics.command('power_save'),
      options: [...POWER_SAVE_OPTIONS],
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
      name: 'Coprocessor firmware',
      icon: 'mdi:chip',
      ...diagnostic,
      value_template: value('coprocessor.firmware'),
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
  return list;
}

export function discoveryPayload(options: DiscoveryOptions): Record<string, unknown> {
  const { topics, version } = options;
  const device: Record<string, unknown> = {
    ids: [`nestbox_${topics.deviceId}`],
    cns: [['mac', macFromDeviceId(topics.deviceId)]],
    name: 'Nestbox',
    mf: 'Nestbox',
    mdl: 'Nestbox home appliance',
    sw: version,
    sn: topics.deviceId,
  };
  if (options.configurationUrl) device.cu = options.configurationUrl;
  return {
    dev: device,
    o: { name: 'Nestbox', sw: version },
    availability_topic: topics.availability,
    payload_available: 'online',
    payload_not_available: 'offline',
    state_topic: topics.state,
    qos: 1,
    cmps: components(topics, options.includeSetupPassphrase ?? false),
  };
}
