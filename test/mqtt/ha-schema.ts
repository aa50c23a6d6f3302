/**
 * Home Assistant's MQTT discovery rules, written down as data (from its MQTT integration's
 * platform schemas and its sensor/number device-class tables), and a checker that lists every
 * way a device-discovery payload breaks them. Shared options at the root (state_topic,
 * availability, qos) are inherited by every component, as Home Assistant merges them; a key a
 * component sets itself must be one its platform knows.
 */

/** Abbreviations Home Assistant expands (the ones a payload may use, with their full names). */
export const ABBREVIATIONS: Record<string, string> = {
  dev: 'device',
  o: 'origin',
  cmps: 'components',
  p: 'platform',
  avty_t: 'availability_topic',
  stat_t: 'state_topic',
  cmd_t: 'command_topic',
  val_tpl: 'value_template',
  uniq_id: 'unique_id',
  dev_cla: 'device_class',
  unit_of_meas: 'unit_of_measurement',
  stat_cla: 'state_class',
  ent_cat: 'entity_category',
  json_attr_t: 'json_attributes_topic',
  json_attr_tpl: 'json_attributes_template',
  pl_avail: 'payload_available',
  pl_not_avail: 'payload_not_available',
  pl_inst: 'payload_install',
  evt_typ: 'event_types',
  ops: 'options',
};
export const DEVICE_ABBREVIATIONS: Record<string, string> = {
  ids: 'identifiers',
  cns: 'connections',
  mf: 'manufacturer',
  mdl: 'model',
  sw: 'sw_version',
  hw: 'hw_version',
  sn: 'serial_number',
  cu: 'configuration_url',
  sa: 'suggested_area',
};
export const ORIGIN_ABBREVIATIONS: Record<string, string> = { sw: 'sw_version', url: 'support_url' };

const DEVICE_KEYS = new Set([
  'identifiers',
  'connections',
  'manufacturer',
  'model',
  'model_id',
  'name',
  'sw_version',
  'hw_version',
  'serial_number',
  'configuration_url',
  'suggested_area',
  'via_device',
]);
const ORIGIN_KEYS = new Set(['name', 'sw_version', 'support_url']);

const AVAILABILITY_KEYS = [
  'availability',
  'availability_mode',
  'availability_template',
  'availability_topic',
  'payload_available',
  'payload_not_available',
];

/** Options every entity platform takes (MQTT_ENTITY_COMMON_SCHEMA and availability). */
const COMMON_KEYS = [
  ...AVAILABILITY_KEYS,
  'platform',
  'name',
  'unique_id',
  'object_id',
  'default_entity_id',
  'icon',
  'entity_category',
  'entity_picture',
  'enabled_by_default',
  'encoding',
  'qos',
  'json_attributes_topic',
  'json_attributes_template',
];

/** Keys shared at the root of a device discovery payload (inherited by the components). */
const SHARED_ROOT_KEYS = new Set([...AVAILABILITY_KEYS, 'state_topic', 'command_topic', 'qos', 'encoding']);

interface PlatformRule {
  required: string[];
  keys: string[];
  deviceClasses: string[] | null;
}

const SENSOR_DEVICE_CLASSES = [
  'apparent_power',
  'aqi',
  'area',
  'atmospheric_pressure',
  'battery',
  'blood_glucose_concentration',
  'carbon_dioxide',
  'carbon_monoxide',
  'conductivity',
  'current',
  'data_rate',
  'data_size',
  'date',
  'distance',
  'duration',
  'energy',
  'energy_distance',
  'energy_storage',
  'enum',
  'frequency',
  'gas',
  'humidity',
  'illuminance',
  'irradiance',
  'moisture',
  'monetary',
  'nitrogen_dioxide',
  'nitrogen_monoxide',
  'nitrous_oxide',
  'ozone',
  'ph',
  'pm1',
  'pm10',
  'pm25',
  'power',
  'power_factor',
  'precipitation',
  'precipitation_intensity',
  'pressure',
  'reactive_power',
  'signal_strength',
  'sound_pressure',
  'speed',
  'sulphur_dioxide',
  'temperature',
  'timestamp',
  'volatile_organic_compounds',
  'volatile_organic_compounds_parts',
  'voltage',
  'volume',
  'volume_flow_rate',
  'volume_storage',
  'water',
  'weight',
  'wind_direction',
  'wind_speed',
];

export const PLATFORMS: Record<string, PlatformRule> = {
  binary_sensor: {
    required: ['state_topic'],
    keys: [
      'state_topic',
      'value_template',
      'device_class',
      'expire_after',
      'force_update',
      'off_delay',
      'payload_on',
      'payload_off',
    ],
    deviceClasses: [
      'battery',
      'battery_charging',
      'carbon_monoxide',
      'cold',
      'connectivity',
      'door',
      'garage_door',
      'gas',
      'heat',
      'light',
      'lock',
      'moisture',
      'motion',
      'moving',
      'occupancy',
      'opening',
      'plug',
      'power',
      'presence',
      'problem',
      'running',
      'safety',
      'smoke',
      'sound',
      'tamper',
      'update',
      'vibration',
      'window',
    ],
  },
  sensor: {
    required: ['state_topic'],
    keys: [
      'state_topic',
      'value_template',
      'device_class',
      'unit_of_measurement',
      'state_class',
      'expire_after',
      'force_update',
      'last_reset_value_template',
      'suggested_display_precision',
      'options',
    ],
    deviceClasses: SENSOR_DEVICE_CLASSES,
  },
  select: {
    required: ['command_topic', 'options'],
    keys: ['command_topic', 'command_template', 'options', 'state_topic', 'value_template', 'optimistic', 'retain'],
    deviceClasses: null,
  },
  number: {
    required: ['command_topic'],
    keys: [
      'command_topic',
      'command_template',
      'state_topic',
      'value_template',
      'min',
      'max',
      'step',
      'mode',
      'unit_of_measurement',
      'device_class',
      'optimistic',
      'payload_reset',
      'retain',
    ],
    deviceClasses: SENSOR_DEVICE_CLASSES.filter((name) => !['enum', 'date', 'timestamp', 'monetary'].includes(name)),
  },
  button: {
    required: ['command_topic'],
    keys: ['command_topic', 'command_template', 'payload_press', 'device_class', 'retain'],
    deviceClasses: ['identify', 'restart', 'update'],
  },
  switch: {
    required: ['command_topic'],
    keys: [
      'command_topic',
      'state_topic',
      'value_template',
      'payload_on',
      'payload_off',
      'state_on',
      'state_off',
      'device_class',
      'optimistic',
      'retain',
    ],
    deviceClasses: ['outlet', 'switch'],
  },
  update: {
    required: [],
    keys: [
      'state_topic',
      'value_template',
      'latest_version_topic',
      'latest_version_template',
      'command_topic',
      'payload_install',
      'device_class',
      'display_precision',
      'release_summary',
      'release_url',
      'title',
      'retain',
    ],
    deviceClasses: ['firmware'],
  },
  event: {
    required: ['state_topic', 'event_types'],
    keys: ['state_topic', 'value_template', 'event_types', 'device_class'],
    deviceClasses: ['button', 'doorbell', 'motion'],
  },
};

/** Units Home Assistant accepts per sensor/number device class (those with a fixed set). */
export const UNITS: Record<string, Array<string | null>> = {
  signal_strength: ['dB', 'dBm'],
  data_size: [
    'bit',
    'kbit',
    'Mbit',
    'Gbit',
    'B',
    'kB',
    'MB',
    'GB',
    'TB',
    'PB',
    'EB',
    'ZB',
    'YB',
    'KiB',
    'MiB',
    'GiB',
    'TiB',
    'PiB',
    'EiB',
    'ZiB',
    'YiB',
  ],
  data_rate: ['bit/s', 'kbit/s', 'Mbit/s', 'Gbit/s', 'B/s', 'kB/s', 'MB/s', 'GB/s', 'KiB/s', 'MiB/s', 'GiB/s'],
  duration: ['d', 'h', 'min', 's', 'ms', 'µs'],
  battery: ['%'],
  humidity: ['%'],
  temperature: ['°C', '°F', 'K'],
  enum: [null],
  date: [null],
  timestamp: [null],
};
const STATE_CLASSES = ['measurement', 'measurement_angle', 'total', 'total_increasing'];
const NO_STATE_CLASS = ['enum', 'date', 'timestamp'];
const ENTITY_CATEGORIES = ['config', 'diagnostic'];
const NUMBER_MODES = ['auto', 'box', 'slider'];

type Json = Record<string, unknown>;

function expand(object: Json, abbreviations: Record<string, string>, where: string, problems: string[]): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(object)) {
    const full = abbreviations[key] ?? key;
    if (full in out) problems.push(`${where}: "${key}" and its other form both given`);
    out[full] = value;
  }
  return out;
}

const isTopic = (value: unknown) => typeof value === 'string' && value.length > 0 && !/[+#]/.test(value);
const isStringList = (value: unknown) =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && item.length > 0);

/** Every rule the payload breaks, in words; empty when Home Assistant would take it as it is. */
export function discoveryProblems(payload: Json): string[] {
  const problems: string[] = [];
  const root = expand(payload, ABBREVIATIONS, 'root', problems);
  const device = root.device as Json | undefined;
  const origin = root.origin as Json | undefined;
  const components = root.components as Record<string, Json> | undefined;
  if (!device || typeof device !== 'object') problems.push('root: device (dev) is required');
  if (!origin || typeof origin !== 'object') problems.push('root: origin (o) is required for device discovery');
  if (!components || typeof components !== 'object' || Object.keys(components).length === 0)
    problems.push('root: components (cmps) is required');
  if (device) checkDevice(expand(device, DEVICE_ABBREVIATIONS, 'device', problems), problems);
  if (origin) {
    const full = expand(origin, ORIGIN_ABBREVIATIONS, 'origin', problems);
    if (typeof full.name !== 'string' || !full.name) problems.push('origin: name is required');
    for (const key of Object.keys(full)) if (!ORIGIN_KEYS.has(key)) problems.push(`origin: unknown key ${key}`);
    if ('support_url' in full && !isUrl(full.support_url)) problems.push('origin: support_url is not a URL');
  }
  if (!isTopic(root.availability_topic) && !Array.isArray(root.availability))
    problems.push('root: no availability (the entities would never go unavailable)');
  const shared: Json = {};
  for (const [key, value] of Object.entries(root))
    if (SHARED_ROOT_KEYS.has(key)) shared[key] = value;
    else if (!['device', 'origin', 'components'].includes(key)) problems.push(`root: ${key} is not a shared option`);
  const uniqueIds = new Set<unknown>();
  for (const [id, raw] of Object.entries(components ?? {})) {
    const own = expand(raw, ABBREVIATIONS, id, problems);
    if (isRemoval(own)) {
      if (!PLATFORMS[own.platform as string]) problems.push(`${id}: unknown platform ${String(own.platform)}`);
      continue;
    }
    checkComponent(id, own, { ...shared, ...own }, problems);
    if (uniqueIds.has(own.unique_id)) problems.push(`${id}: unique_id ${String(own.unique_id)} used twice`);
    uniqueIds.add(own.unique_id);
  }
  return problems;
}

/** A component holding nothing but its platform: Home Assistant removes that entity. */
function isRemoval(component: Json): boolean {
  return Object.keys(component).length === 1 && typeof component.platform === 'string';
}

/**
 * The entities Home Assistant holds after it read these device configs in turn (its discovery keeps
 * every platform and component id it saw until a config names it with its platform alone), as
 * "platform component-id".
 */
export function entitiesAfter(payloads: Json[]): string[] {
  const held = new Set<string>();
  for (const payload of payloads) {
    const root = expand(payload, ABBREVIATIONS, 'root', []);
    for (const [id, raw] of Object.entries((root.components ?? {}) as Record<string, Json>)) {
      const own = expand(raw, ABBREVIATIONS, id, []);
      const entity = `${String(own.platform)} ${id}`;
      if (isRemoval(own)) held.delete(entity);
      else held.add(entity);
    }
  }
  return [...held].sort();
}

function isUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

function checkDevice(device: Json, problems: string[]): void {
  const ids = device.identifiers;
  const connections = device.connections;
  if (!isStringList(ids) && !(Array.isArray(connections) && connections.length > 0))
    problems.push('device: identifiers or connections are required');
  if (Array.isArray(connections))
    for (const pair of connections)
      if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((part) => typeof part === 'string'))
        problems.push('device: a connection is a [type, value] pair of strings');
  for (const key of Object.keys(device)) if (!DEVICE_KEYS.has(key)) problems.push(`device: unknown key ${key}`);
  for (const key of ['name', 'manufacturer', 'model', 'sw_version', 'hw_version', 'serial_number'])
    if (key in device && typeof device[key] !== 'string') problems.push(`device: ${key} must be a string`);
  if ('configuration_url' in device) {
    if (!isUrl(device.configuration_url)) problems.push('device: configuration_url is not an http(s) URL');
    else if (/^(localhost|127\.|\[::1\])/.test(new URL(device.configuration_url as string).host))
      problems.push("device: configuration_url points at the viewer's own machine (localhost)");
  }
}

function checkComponent(id: string, own: Json, merged: Json, problems: string[]): void {
  const platform = own.platform as string;
  const rule = PLATFORMS[platform];
  if (!rule) {
    problems.push(`${id}: unknown platform ${String(platform)}`);
    return;
  }
  const allowed = new Set([...COMMON_KEYS, ...rule.keys]);
  for (const key of Object.keys(own)) if (!allowed.has(key)) problems.push(`${id}: ${platform} takes no ${key}`);
  for (const key of rule.required) if (!(key in merged)) problems.push(`${id}: ${platform} needs ${key}`);
  if (typeof own.unique_id !== 'string' || !own.unique_id) problems.push(`${id}: unique_id is required`);
  for (const key of ['state_topic', 'command_topic', 'json_attributes_topic', 'availability_topic'])
    if (key in merged && !isTopic(merged[key])) problems.push(`${id}: ${key} is not a topic to publish on`);
  if ('json_attributes_template' in own && !('json_attributes_topic' in own))
    problems.push(`${id}: json_attributes_template without json_attributes_topic`);
  const category = own.entity_category;
  if (category !== undefined && !ENTITY_CATEGORIES.includes(category as string))
    problems.push(`${id}: entity_category ${JSON.stringify(category)} is not config or diagnostic`);
  if ((platform === 'sensor' || platform === 'binary_sensor') && category === 'config')
    problems.push(`${id}: a ${platform} cannot be a config entity (only diagnostic)`);
  const deviceClass = own.device_class as string | undefined;
  if (deviceClass !== undefined && !(rule.deviceClasses ?? []).includes(deviceClass))
    problems.push(`${id}: ${platform} has no device class ${deviceClass}`);
  if (platform === 'sensor' || platform === 'number') checkMeasured(id, platform, own, problems);
  if (platform === 'select' && !uniqueStrings(own.options))
    problems.push(`${id}: select options must be distinct strings`);
  if (platform === 'event' && !uniqueStrings(own.event_types))
    problems.push(`${id}: event_types must be distinct strings`);
  if (platform === 'number') {
    const {
      min = 1,
      max = 100,
      step = 1,
      mode = 'auto',
    } = own as { min?: number; max?: number; step?: number; mode?: string };
    if (!(min < max)) problems.push(`${id}: min must be below max`);
    if (!(step > 0)) problems.push(`${id}: step must be positive`);
    if (!NUMBER_MODES.includes(mode)) problems.push(`${id}: mode ${mode} is not auto, box or slider`);
  }
  if (platform === 'update' && !('state_topic' in merged) && !('latest_version_topic' in own))
    problems.push(`${id}: update needs state_topic or latest_version_topic`);
}

function uniqueStrings(value: unknown): boolean {
  return isStringList(value) && new Set(value as string[]).size === (value as string[]).length;
}

function checkMeasured(id: string, platform: string, own: Json, problems: string[]): void {
  const deviceClass = own.device_class as string | undefined;
  const unit = (own.unit_of_measurement as string | undefined) ?? null;
  const stateClass = own.state_class as string | undefined;
  if (deviceClass && UNITS[deviceClass] && !UNITS[deviceClass].includes(unit))
    problems.push(`${id}: unit ${String(unit)} is not one of ${deviceClass}'s (${UNITS[deviceClass].join(', ')})`);
  if (stateClass !== undefined) {
    if (!STATE_CLASSES.includes(stateClass)) problems.push(`${id}: state_class ${stateClass} is unknown`);
    if (deviceClass && NO_STATE_CLASS.includes(deviceClass))
      problems.push(`${id}: a ${deviceClass} sensor takes no state_class`);
  }
  if (platform === 'sensor') {
    if (deviceClass === 'enum' && !uniqueStrings(own.options)) problems.push(`${id}: an enum sensor needs options`);
    if ('options' in own && deviceClass !== 'enum') problems.push(`${id}: options only go with device_class enum`);
    if ('suggested_display_precision' in own && !Number.isInteger(own.suggested_display_precision))
      problems.push(`${id}: suggested_display_precision must be an integer`);
  }
}
