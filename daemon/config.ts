/**
 * Configuration: embedded defaults ← JSON file (--config FILE or NESTBOX_CONFIG) ← environment.
 * Every key is described once in KEYS; parsing, validation and error messages come from that table.
 * A bad value throws ConfigError, which main.ts turns into exit code 2 and one line on stderr.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import cron from 'node-cron';
import { FIRMWARE_GENERATIONS, type FirmwareGeneration } from './coproc/operations.js';
import { DEFAULT_RESET_COMMAND } from './coproc/chip-reset.js';
import { parseRelease } from './coproc/release.js';
import { LOG_LEVELS, type LogLevel } from './log/logger.js';

export type CoprocTarget =
  { kind: 'sim' } | { kind: 'serial'; path: string; baud: number } | { kind: 'esps'; path: string };

/** What the embedded simulator (`coproc: sim`) starts as; see daemon/coproc/sim/index.ts. */
export const SIM_SCENARIO_NAMES = ['default', 'no_networks', 'unresponsive'] as const;
export type SimScenarioName = (typeof SIM_SCENARIO_NAMES)[number];

export type Registrations = 'open' | 'approval' | 'closed';
/** So many attempts per so many seconds. */
export interface AttemptLimit {
  limit: number;
  periodS: number;
}
/** `off`: touch no interface (connectivity = association); `on`: the network layer configures them. */
export type NetworkLayer = 'on' | 'off';
export type MqttProtocol = 3 | 4 | 5;
export const SQLITE_SYNCHRONOUS_LEVELS = ['full', 'normal'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS_LEVELS)[number];

export interface Config {
  dataDir: string;
  httpHost: string;
  httpPort: number;
  streamingPort: number;
  baseUrl: string;
  streamingUrl: string;
  registrations: Registrations;
  coproc: CoprocTarget;
  simScenario: SimScenarioName;
  /** Which ESP-Hosted firmware generation the embedded simulator behaves like. */
  simFirmware: FirmwareGeneration;
  /** ISO 3166-1 alpha-2 Wi-Fi country for the coprocessor; null leaves the firmware's own. */
  wifiCountry: string | null;
  /** The ESP-Hosted driver's release (`FG-1.0.0.0.0`); null: the firmware's release is not checked. */
  espHostedRelease: string | null;
  /** A coprocessor lost this long (seconds) is reset; 0: never. */
  coprocResetAfterS: number;
  /** What resets it (program and arguments, no shell); esps: transport only. */
  coprocResetCommand: string[];
  mqttUrl: string | null;
  mqttUsername: string | null;
  mqttPassword: string | null;
  mqttPrefix: string;
  haDiscovery: string;
  mqttProtocol: MqttProtocol;
  mqttClientId: string | null;
  mqttCaFile: string | null;
  mqttCertFile: string | null;
  mqttKeyFile: string | null;
  mqttPublishSetupPassphrase: boolean;
  mqttRefreshSchedule: string;
  /** The machine id: the MQTT device id's source when the coprocessor never told its MAC. */
  machineIdFile: string;
  logLevel: LogLevel;
  heartbeatS: number;
  heartbeatMisses: number;
  reconnectMaxS: number;
  fallbackAfterS: number;
  setupRetryS: number;
  stableS: number;
  setupPassphrase: string | null;
  reconnectDelayMs: number;
  coprocTimeScale: number;
  /** The soft AP's address without its prefix (what the captive DNS and the portal bind). */
  setupApAddress: string | null;
  /** The prefix length of NESTBOX_SETUP_AP_ADDRESS (24 when given as a bare address). */
  setupApPrefixLength: number;
  setupDnsPort: number;
  network: NetworkLayer;
  staIface: string;
  apIface: string;
  hostname: string;
  publicPreview: boolean;
  federationAllowPrivate: boolean;
  backupSchedule: string;
  backupKeep: number;
  smtpUrl: string | null;
  smtpFrom: string;
  loginLimitAddress: AttemptLimit;
  loginLimitAccount: AttemptLimit;
  storageMinFreeMb: number;
  sqliteSynchronous: SqliteSynchronous;
  /** The HTTPS listener's port (the public side); null: no HTTPS listener. */
  httpsPort: number | null;
  /** Ask the home router for port forwarding (UPnP IGD, NAT-PMP/PCP). */
  portMapping: 'on' | 'off';
  /** The ACME server's directory URL (Let's Encrypt's production one by default). */
  acmeDirectory: string;
  /** A PEM file of extra roots to trust for the ACME server and the reachability check (tests). */
  acmeCaFile: string | null;
  /** A URL answering the caller's address as text, asked when the router tells nothing. */
  addressEchoUrl: string | null;
  /** How often the reachability flow asks the router and checks the address (at most 30 s). */
  reachabilityCycleS: number;
  /** Where each setting given in the file or the environment came from (the rest are defaults). */
  sources: Readonly<Partial<Record<keyof Config, SettingSource>>>;
}

/** A setting's name as given and where: `NESTBOX_BASE_URL` in the environment, `base_url` in a file. */
export interface SettingSource {
  name: string;
  source: string;
}

export class ConfigError extends Error {
  constructor(
    readonly key: string,
    readonly value: unknown,
    readonly allowed: string,
    readonly source: string,
  ) {
    super(`config: ${key}=${JSON.stringify(value)} (${source}) is not allowed: ${allowed}`);
    this.name = 'ConfigError';
  }
}

type Parser<T> = { allowed: string; parse(raw: unknown, fromEnv: boolean): T | undefined };

const nonEmpty = (allowed: string): Parser<string> => ({
  allowed,
  parse: (raw) => (typeof raw === 'string' && raw.trim() !== '' ? raw : undefined),
});

const optionalText = (allowed = 'a string'): Parser<string | null> => ({
  allowed,
  parse: (raw) => (raw === null || raw === '' ? null : typeof raw === 'string' ? raw : undefined),
});

const integer = (min: number, max: number, allowed = `a whole number from ${min} to ${max}`): Parser<number> => ({
  allowed,
  parse(raw, fromEnv) {
    const value = fromEnv && typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
    return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : undefined;
  },
});

const positiveNumber = (min: number, max: number): Parser<number> => ({
  allowed: `a number from ${min} to ${max}`,
  parse(raw, fromEnv) {
    const value = fromEnv && typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
    return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : undefined;
  },
});

const ipv4Address: Parser<string | null> = {
  allowed:
    'an IPv4 address of this machine (the soft-AP interface) with an optional prefix length (192.168.4.1/24), or empty',
  parse(raw) {
    if (raw === null || raw === '') return null;
    if (typeof raw !== 'string') return undefined;
    return parseCidr(raw) ? raw : undefined;
  },
};

/** "192.168.4.1/24" or a bare "192.168.4.1" (prefix 24); undefined when either part is invalid. */
export function parseCidr(text: string): { address: string; prefixLength: number } | undefined {
  const match = /^(\d{1,3}(?:\.\d{1,3}){3})(?:\/(\d{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  const address = match[1];
  const prefixLength = match[2] === undefined ? 24 : Number(match[2]);
  const octets = address.split('.').map(Number);
  if (octets.some((octet) => octet > 255) || prefixLength < 8 || prefixLength > 30) return undefined;
  return { address, prefixLength };
}

/** Linux interface names: at most 15 bytes, no slash, no whitespace (IFNAMSIZ). */
const interfaceName: Parser<string> = {
  allowed: 'a network interface name (1 to 15 letters, digits, -, _ or .)',
  parse: (raw) =>
    typeof raw === 'string' && /^[A-Za-z0-9_.-]{1,15}$/.test(raw) && raw !== '.' && raw !== '..' ? raw : undefined,
};

/** One DNS label (RFC 1123): announced as <hostname>.local. */
const hostLabel: Parser<string> = {
  allowed: 'a host name label: 1 to 63 letters, digits or -, not starting or ending with -',
  parse: (raw) =>
    typeof raw === 'string' && /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(raw)
      ? raw.toLowerCase()
      : undefined,
};

const boolean: Parser<boolean> = {
  allowed: 'true or false',
  parse(raw, fromEnv) {
    if (typeof raw === 'boolean') return raw;
    if (!fromEnv || typeof raw !== 'string') return undefined;
    const word = raw.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(word)) return true;
    if (['false', '0', 'no', 'off'].includes(word)) return false;
    return undefined;
  },
};

const oneOf = <T extends string>(values: readonly T[]): Parser<T> => ({
  allowed: `one of ${values.join(', ')}`,
  parse: (raw) => (typeof raw === 'string' && (values as readonly string[]).includes(raw) ? (raw as T) : undefined),
});

const httpUrl = (allowed: string): Parser<string> => ({
  allowed,
  parse(raw) {
    if (typeof raw !== 'string') return undefined;
    try {
      const url = new URL(raw);
      return ['http:', 'https:'].includes(url.protocol) && !url.search && !url.hash
        ? raw.replace(/\/+$/, '')
        : undefined;
    } catch {
      return undefined;
    }
  },
});

const BASE_URL = httpUrl('an http:// or https:// URL without query');

/** The instance's base URL as the configuration takes it (no trailing slash), or undefined. */
export function parseBaseUrl(raw: string): string | undefined {
  return BASE_URL.parse(raw, true);
}

/**
 * The streaming server's URL: Mastodon's setting takes the ws:// or wss:// form, apps may be told
 * the http:// one; kept as http(s) (the API gives clients the ws form of it).
 */
const streamingUrl = (allowed: string): Parser<string> => {
  const http = httpUrl(allowed);
  return {
    allowed,
    parse(raw, fromEnv) {
      return http.parse(typeof raw === 'string' ? raw.replace(/^ws(s?):\/\//i, 'http$1://') : raw, fromEnv);
    },
  };
};

/** A URL with one of `protocols` (and a host), or empty for "off". */
const optionalUrl = (protocols: readonly string[], allowed: string): Parser<string | null> => ({
  allowed,
  parse(raw) {
    if (raw === null || raw === '') return null;
    if (typeof raw !== 'string') return undefined;
    try {
      const url = new URL(raw);
      return protocols.includes(url.protocol) && url.hostname ? raw : undefined;
    } catch {
      return undefined;
    }
  },
});

const mqttUrl = optionalUrl(
  ['mqtt:', 'mqtts:', 'ws:', 'wss:'],
  'an mqtt://, mqtts://, ws:// or wss:// URL, or empty for MQTT off',
);
const smtpUrl = optionalUrl(
  ['smtp:', 'smtps:'],
  'an smtp:// or smtps:// URL (user:password@host:port), or empty for no mail',
);

const mqttProtocol: Parser<MqttProtocol> = {
  allowed: '3.1.1 (default) or 5 (3.1 for old brokers)',
  parse(raw) {
    if (typeof raw !== 'string' && typeof raw !== 'number') return undefined;
    const word = String(raw).trim();
    if (word === '3.1.1' || word === '4') return 4;
    if (word === '5' || word === '5.0') return 5;
    if (word === '3.1' || word === '3') return 3;
    return undefined;
  },
};

/** MQTT allows any UTF-8 client id; printable ASCII without spaces keeps broker logs and ACLs sane. */
const mqttClientId: Parser<string | null> = {
  allowed: '1 to 64 printable ASCII characters without spaces, or empty for nestbox-<device id>',
  parse: (raw) =>
    raw === null || raw === '' ? null : typeof raw === 'string' && /^[\x21-\x7e]{1,64}$/.test(raw) ? raw : undefined,
};

const countryCode: Parser<string | null> = {
  allowed: "a two-letter country code (ISO 3166-1, e.g. DE), or empty for the firmware's own",
  parse: (raw) =>
    raw === null || raw === ''
      ? null
      : typeof raw === 'string' && /^[A-Za-z]{2}$/.test(raw.trim())
        ? raw.trim().toUpperCase()
        : undefined,
};

const cronExpression: Parser<string> = {
  allowed: 'a cron expression (five or six fields), or "off"',
  parse: (raw) => (typeof raw === 'string' && (raw === 'off' || cron.validate(raw)) ? raw : undefined),
};

const topicPart = (allowed: string, allowEmpty: boolean): Parser<string> => ({
  allowed,
  parse(raw) {
    if (typeof raw !== 'string') return undefined;
    if (raw === '') return allowEmpty ? raw : undefined;
    // eslint-disable-next-line no-control-regex -- NUL is what MQTT forbids in a topic: this is the check.
    return /^[^#+\u0000]+$/.test(raw) && !raw.startsWith('/') && !raw.endsWith('/') ? raw : undefined;
  },
});

const passphrase: Parser<string | null> = {
  allowed: '8 to 63 characters, or 64 hex digits (WPA2)',
  parse(raw) {
    if (raw === null || raw === '') return null;
    if (typeof raw !== 'string') return undefined;
    const ok = (raw.length >= 8 && raw.length <= 63 && /^[\x20-\x7e]+$/.test(raw)) || /^[0-9a-fA-F]{64}$/.test(raw);
    return ok ? raw : undefined;
  },
};

export const COPROC_ALLOWED = 'sim, serial:/dev/PATH[?baud=N] or esps:/dev/PATH';
const BAUD_RATES = [9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600, 1000000, 1500000, 2000000, 3000000];

export function parseCoprocTarget(raw: string): CoprocTarget | undefined {
  if (raw === 'sim') return { kind: 'sim' };
  const match = /^(serial|esps):(\/[^?\s]+)(?:\?(.*))?$/.exec(raw);
  if (!match) return undefined;
  const [, kind, path, query] = match;
  if (kind === 'esps') return query ? undefined : { kind: 'esps', path: path };
  const params = new URLSearchParams(query ?? '');
  for (const name of params.keys()) if (name !== 'baud') return undefined;
  const baudText = params.get('baud') ?? '921600';
  const baud = /^\d+$/.test(baudText) ? Number(baudText) : NaN;
  return BAUD_RATES.includes(baud) ? { kind: 'serial', path: path, baud } : undefined;
}

const coproc: Parser<CoprocTarget> = {
  allowed: COPROC_ALLOWED,
  parse: (raw) => (typeof raw === 'string' ? parseCoprocTarget(raw) : undefined),
};

const optionalPort: Parser<number | null> = {
  allowed: 'a port number from 1 to 65535, or empty for none',
  parse(raw, fromEnv) {
    if (raw === null || raw === '') return null;
    return integer(1, 65535).parse(raw, fromEnv);
  },
};

export const LETS_ENCRYPT = 'https://acme-v02.api.letsencrypt.org/directory';

const espHostedRelease: Parser<string | null> = {
  allowed: 'an ESP-Hosted-FG release as the driver names it (FG-1.0.0.0.0), or empty',
  parse: (raw) =>
    raw === null || raw === '' ? null : typeof raw === 'string' ? (parseRelease(raw) ?? undefined) : undefined,
};

const commandLine: Parser<string[]> = {
  allowed: 'a program (absolute path or name) and its arguments separated by spaces',
  parse(raw) {
    const words = typeof raw === 'string' ? raw.trim().split(/\s+/).filter(Boolean) : Array.isArray(raw) ? raw : [];
    return words.length > 0 && words.every((word) => typeof word === 'string' && word !== '' && !/[\0\n]/.test(word))
      ? (words as string[])
      : undefined;
  },
};

const attemptLimit: Parser<AttemptLimit> = {
  allowed: 'ATTEMPTS/SECONDS, two whole numbers from 1 to 86400 (e.g. 25/300)',
  parse(raw) {
    const match = typeof raw === 'string' ? /^(\d{1,5})\/(\d{1,5})$/.exec(raw.trim()) : null;
    if (!match) return undefined;
    const [limit, periodS] = [Number(match[1]), Number(match[2])];
    return limit >= 1 && limit <= 86400 && periodS >= 1 && periodS <= 86400 ? { limit, periodS } : undefined;
  },
};

interface KeySpec<K extends keyof Config = keyof Config> {
  field: K;
  json: string;
  env: string;
  parser: Parser<Config[K]>;
  /** A value, or a function of the keys already resolved (derived defaults). */
  fallback: Config[K] | ((config: Partial<Config>) => Config[K]);
}

function key<K extends keyof Config>(
  field: K,
  json: string,
  parser: Parser<Config[K]>,
  fallback: KeySpec<K>['fallback'],
): KeySpec<K> {
  return { field, json, env: `NESTBOX_${json.toUpperCase()}`, parser, fallback };
}

/** The configuration contract (docs/architecture.md, README) in one table. Order matters for derived defaults. */
export const KEYS: readonly KeySpec[] = [
  key('dataDir', 'data_dir', nonEmpty('a directory path'), './data'),
  key('network', 'network', oneOf(['on', 'off'] as const), 'off'),
  // With the network layer on, the box serves its home network (the owner's API stays behind the owner's token).
  key('httpHost', 'http_host', nonEmpty('a host name or IP address'), (c) =>
    c.network === 'on' ? '0.0.0.0' : '127.0.0.1',
  ),
  key('httpPort', 'http_port', integer(1, 65535, 'a port number from 1 to 65535'), 8080),
  key('streamingPort', 'streaming_port', integer(1, 65535, 'a port number from 1 to 65535'), 4000),
  key('hostname', 'hostname', hostLabel, 'nestbox'),
  key('baseUrl', 'base_url', BASE_URL, (c) => defaultBaseUrl(c.network!, c.hostname!, c.httpPort!)),
  key('streamingUrl', 'streaming_url', streamingUrl('a ws://, wss://, http:// or https:// URL without query'), (c) =>
    deriveStreamingUrl(c.baseUrl!, c.streamingPort!),
  ),
  key('registrations', 'registrations', oneOf(['open', 'approval', 'closed'] as const), 'closed'),
  key('coproc', 'coproc', coproc, { kind: 'sim' }),
  key('simScenario', 'sim_scenario', oneOf(SIM_SCENARIO_NAMES), 'default'),
  key('simFirmware', 'sim_firmware', oneOf(FIRMWARE_GENERATIONS), 'documented'),
  key('wifiCountry', 'wifi_country', countryCode, null),
  key('espHostedRelease', 'esp_hosted_release', espHostedRelease, null),
  key('coprocResetAfterS', 'coproc_reset_after_s', integer(0, 86400), 120),
  key('coprocResetCommand', 'coproc_reset_command', commandLine, DEFAULT_RESET_COMMAND),
  key('mqttUrl', 'mqtt_url', mqttUrl, null),
  key('mqttUsername', 'mqtt_username', optionalText(), null),
  key('mqttPassword', 'mqtt_password', optionalText(), null),
  key('mqttPrefix', 'mqtt_prefix', topicPart('a topic prefix without + # or leading/trailing /', false), 'nestbox'),
  key(
    'haDiscovery',
    'ha_discovery',
    topicPart('a discovery prefix without + #, or empty to turn discovery off', true),
    'homeassistant',
  ),
  key('mqttProtocol', 'mqtt_protocol', mqttProtocol, 4),
  key('mqttClientId', 'mqtt_client_id', mqttClientId, null),
  key('mqttCaFile', 'mqtt_ca_file', optionalText('a file path (PEM), or empty'), null),
  key('mqttCertFile', 'mqtt_cert_file', optionalText('a file path (PEM), or empty'), null),
  key('mqttKeyFile', 'mqtt_key_file', optionalText('a file path (PEM), or empty'), null),
  key('mqttPublishSetupPassphrase', 'mqtt_publish_setup_passphrase', boolean, false),
  key('mqttRefreshSchedule', 'mqtt_refresh_schedule', cronExpression, '* * * * *'),
  key('machineIdFile', 'machine_id_file', nonEmpty('a file path'), '/etc/machine-id'),
  key('logLevel', 'log_level', oneOf(LOG_LEVELS), 'info'),
  key('heartbeatS', 'heartbeat_s', integer(1, 3600), 10),
  key('heartbeatMisses', 'heartbeat_misses', integer(1, 100), 3),
  key('reconnectMaxS', 'reconnect_max_s', integer(1, 3600), 30),
  key('fallbackAfterS', 'fallback_after_s', integer(0, 86400), 60),
  key('setupRetryS', 'setup_retry_s', integer(1, 86400), 60),
  key('stableS', 'stable_s', integer(0, 3600), 10),
  key('setupPassphrase', 'setup_passphrase', passphrase, null),
  key('reconnectDelayMs', 'reconnect_delay_ms', integer(0, 600_000), 1000),
  key('coprocTimeScale', 'coproc_time_scale', positiveNumber(0.001, 10_000), 1),
  key('staIface', 'sta_iface', interfaceName, 'ethsta0'),
  key('apIface', 'ap_iface', interfaceName, 'ethap0'),
  key('setupApAddress', 'setup_ap_address', ipv4Address, (c) => (c.network === 'on' ? '192.168.4.1/24' : null)),
  key('setupDnsPort', 'setup_dns_port', integer(1, 65535, 'a port number from 1 to 65535'), 53),
  key('publicPreview', 'public_preview', boolean, true),
  key('federationAllowPrivate', 'federation_allow_private', boolean, false),
  key('backupSchedule', 'backup_schedule', cronExpression, '30 3 * * *'),
  key('backupKeep', 'backup_keep', integer(1, 365), 7),
  key('smtpUrl', 'smtp_url', smtpUrl, null),
  key(
    'storageMinFreeMb',
    'storage_min_free_mb',
    integer(0, 1_048_576, 'a whole number of megabytes from 0 (no early warning) to 1048576'),
    128,
  ),
  key('sqliteSynchronous', 'sqlite_synchronous', oneOf(SQLITE_SYNCHRONOUS_LEVELS), 'full'),
  key('httpsPort', 'https_port', optionalPort, (c) => (c.network === 'on' ? 443 : null)),
  key('portMapping', 'port_mapping', oneOf(['on', 'off'] as const), (c) => (c.network === 'on' ? 'on' : 'off')),
  key('acmeDirectory', 'acme_directory', httpUrl('an http:// or https:// URL (the ACME directory)'), LETS_ENCRYPT),
  key('acmeCaFile', 'acme_ca_file', optionalText('a file path (PEM, one or more roots), or empty'), null),
  key(
    'addressEchoUrl',
    'address_echo_url',
    optionalUrl(['http:', 'https:'], 'an http:// or https:// URL, or empty'),
    null,
  ),
  key('reachabilityCycleS', 'reachability_cycle_s', integer(1, 30), 30),
  key(
    'smtpFrom',
    'smtp_from',
    nonEmpty('an e-mail address, optionally with a name: "Nestbox <box@example.org>"'),
    (c) => `Nestbox <notifications@${new URL(c.baseUrl!).hostname}>`,
  ),
  // Mastodon's rack-attack rules throttle_login_attempts/ip and throttle_login_attempts/email.
  key('loginLimitAddress', 'login_limit_address', attemptLimit, { limit: 25, periodS: 300 }),
  key('loginLimitAccount', 'login_limit_account', attemptLimit, { limit: 25, periodS: 3600 }),
] as KeySpec[];

/**
 * A developer's machine answers on localhost; a box (network layer on) on the name it announces
 * over mDNS, so every link it prints or sends works from the home network until the owner gives
 * a public address.
 */
export function defaultBaseUrl(network: NetworkLayer, hostname: string, httpPort: number): string {
  if (network === 'off') return 'http://localhost:8080';
  return `http://${hostname}.local${httpPort === 80 ? '' : `:${httpPort}`}`;
}

function deriveStreamingUrl(baseUrl: string, streamingPort: number): string {
  const url = new URL(baseUrl);
  url.port = String(streamingPort);
  return url.toString().replace(/\/+$/, '');
}

export interface ConfigSources {
  env?: NodeJS.ProcessEnv;
  /** Path given with --config; NESTBOX_CONFIG is used when absent. */
  file?: string | null;
  cwd?: string;
}

export function loadConfig(sources: ConfigSources = {}): Config {
  const env = sources.env ?? {};
  const cwd = sources.cwd ?? process.cwd();
  const filePath = sources.file ?? env.NESTBOX_CONFIG ?? null;
  const fileValues = filePath ? readConfigFile(resolve(cwd, filePath)) : {};
  const knownEnv = new Set(KEYS.map((spec) => spec.env));
  for (const name of Object.keys(env)) {
    if (name.startsWith('NESTBOX_') && name !== 'NESTBOX_CONFIG' && !knownEnv.has(name)) {
      throw new ConfigError(name, env[name], `a known setting (${[...knownEnv].join(', ')})`, 'environment');
    }
  }

  const config: Partial<Config> = {};
  const given: Partial<Record<keyof Config, SettingSource>> = {};
  for (const spec of KEYS) {
    const envValue = env[spec.env];
    let value: unknown;
    if (envValue !== undefined) {
      value = parseOne(spec, spec.env, envValue, true, 'environment');
      given[spec.field] = { name: spec.env, source: 'environment' };
    } else if (spec.json in fileValues) {
      value = parseOne(spec, spec.json, fileValues[spec.json], false, filePath!);
      given[spec.field] = { name: spec.json, source: filePath! };
    } else {
      value = fallbackOf(spec, config);
    }
    (config as Record<string, unknown>)[spec.field] = value;
  }
  config.sources = given;
  config.dataDir = resolve(cwd, config.dataDir!);
  const setupAp = config.setupApAddress ? parseCidr(config.setupApAddress)! : null;
  config.setupApAddress = setupAp?.address ?? null;
  config.setupApPrefixLength = setupAp?.prefixLength ?? 24;
  return config as Config;
}

function fallbackOf(spec: KeySpec, config: Partial<Config>): unknown {
  return typeof spec.fallback === 'function'
    ? (spec.fallback as (c: Partial<Config>) => unknown)(config)
    : spec.fallback;
}

/**
 * The configuration with another base URL (the one the instance stored at its first start): the
 * defaults made from the base URL (streaming URL, mail sender) are made again from it.
 */
export function withBaseUrl(config: Config, baseUrl: string): Config {
  const next: Config = { ...config, baseUrl };
  for (const spec of KEYS) {
    if (DERIVED_FROM_BASE_URL.includes(spec.field) && !config.sources[spec.field]) {
      (next as unknown as Record<string, unknown>)[spec.field] = fallbackOf(spec, next);
    }
  }
  return next;
}
const DERIVED_FROM_BASE_URL: readonly (keyof Config)[] = ['streamingUrl', 'smtpFrom'];

function parseOne(spec: KeySpec, name: string, raw: unknown, fromEnv: boolean, source: string): unknown {
  const value = spec.parser.parse(raw, fromEnv);
  if (value === undefined) throw new ConfigError(name, raw, spec.parser.allowed, source);
  return value;
}

function readConfigFile(path: string): Record<string, unknown> {
  let textContent: string;
  try {
    textContent = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(
      '--config',
      path,
      `a readable JSON file (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
      'command line',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(textContent);
  } catch (error) {
    throw new ConfigError('--config', path, `valid JSON (${(error as Error).message})`, 'command line');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError('--config', path, 'a JSON object of settings', 'command line');
  }
  const known = new Set(KEYS.map((spec) => spec.json));
  for (const name of Object.keys(parsed)) {
    if (!known.has(name))
      throw new ConfigError(
        name,
        (parsed as Record<string, unknown>)[name],
        `a known setting (${[...known].join(', ')})`,
        path,
      );
  }
  return parsed as Record<string, unknown>;
}

/** The settings with secrets left out, for the start-up log line. */
export function describeConfig(config: Config): Record<string, unknown> {
  const { sources: _sources, ...settings } = config;
  return {
    ...settings,
    coproc: config.coproc.kind === 'sim' ? 'sim' : `${config.coproc.kind}:${config.coproc.path}`,
    mqttUrl: config.mqttUrl ? withoutUserInfo(config.mqttUrl) : null,
    mqttPassword: config.mqttPassword ? '[set]' : null,
    smtpUrl: config.smtpUrl ? config.smtpUrl.replace(/\/\/[^@/]*@/, '//[credentials]@') : null,
    setupPassphrase: config.setupPassphrase ? '[set]' : null,
  };
}

/** A broker URL may carry a login (mqtt://user:pass@host): never show it. */
export function withoutUserInfo(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '[unparsable URL]';
  }
}
