/**
 * Configuration: embedded defaults ← JSON file (--config FILE or NESTBOX_CONFIG) ← environment.
 * Every key is described once in KEYS; parsing, validation and error messages come from that table.
 * A bad value throws ConfigError, which main.ts turns into exit code 2 and one line on stderr.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FIRMWARE_GENERATIONS, type FirmwareGeneration } from './coproc/operations.js';
import { DEFAULT_RESET_COMMAND } from './coproc/chip-reset.js';
import { LOG_LEVELS, type LogLevel } from './log/logger.js';
import { withoutCredentials } from './store/database-url.js';
import {
  nonEmpty,
  optionalText,
  integer,
  positiveNumber,
  ipv4Address,
  parseCidr,
  interfaceName,
  hostLabel,
  boolean,
  oneOf,
  httpUrl,
  BASE_URL,
  streamingUrl,
  optionalUrl,
  mqttUrl,
  smtpUrl,
  databaseUrl,
  mqttProtocol,
  mqttClientId,
  countryCode,
  cronExpression,
  topicPart,
  passphrase,
  coproc,
  optionalPort,
  espHostedRelease,
  commandLine,
  attemptLimit,
  type Parser,
} from './config-values.js';

export { COPROC_ALLOWED, parseBaseUrl, parseCidr, parseCoprocTarget } from './config-values.js';

export type CoprocTarget =
  { kind: 'sim' } | { kind: 'serial'; path: string; baud: number } | { kind: 'esps'; path: string };
/** The coprocessor a link is opened to, or none: an instance without a box. */
export type CoprocSetting = CoprocTarget | { kind: 'none' };

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
  coproc: CoprocSetting;
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
  /** PostgreSQL instead of the SQLite file under the data directory; null: SQLite. */
  databaseUrl: string | null;
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

export const LETS_ENCRYPT = 'https://acme-v02.api.letsencrypt.org/directory';

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
  key('httpsPort', 'https_port', optionalPort, (c) => (c.network === 'on' ? 443 : null)),
  key('baseUrl', 'base_url', BASE_URL, (c) => defaultBaseUrl(c.network!, c.hostname!, c.httpPort!)),
  key('streamingUrl', 'streaming_url', streamingUrl('a ws://, wss://, http:// or https:// URL without query'), (c) =>
    deriveStreamingUrl(c.baseUrl!, c.streamingPort!, c.httpsPort ?? null),
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
  key('databaseUrl', 'database_url', databaseUrl, null),
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

/**
 * An https:// base URL with the box's own HTTPS listener (the reachability contract: `https://<name>`
 * reaches that listener, port 443 mapped to it) streams on that same address, so no other port
 * needs opening; otherwise the streaming server's own port beside the base URL's host.
 */
function deriveStreamingUrl(baseUrl: string, streamingPort: number, httpsPort: number | null): string {
  const url = new URL(baseUrl);
  if (url.protocol === 'https:' && httpsPort !== null) return url.origin;
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
  refuseNetworkWithoutBox(config as Config);
  config.dataDir = resolve(cwd, config.dataDir!);
  const setupAp = config.setupApAddress ? parseCidr(config.setupApAddress)! : null;
  config.setupApAddress = setupAp?.address ?? null;
  config.setupApPrefixLength = setupAp?.prefixLength ?? 24;
  return config as Config;
}

/** The network layer drives the coprocessor's interfaces: an instance without a box has none. */
function refuseNetworkWithoutBox(config: Config): void {
  if (config.coproc.kind !== 'none' || config.network === 'off') return;
  const setting = config.sources.network ?? { name: 'NESTBOX_NETWORK', source: 'default' };
  throw new ConfigError(
    setting.name,
    config.network,
    'off when NESTBOX_COPROC is none (without a coprocessor there are no interfaces to drive)',
    setting.source,
  );
}

/** The coprocessor setting as written: `sim`, `none`, `serial:/dev/…`, `esps:/dev/…`. */
export function describeCoproc(coproc: CoprocSetting): string {
  return coproc.kind === 'sim' || coproc.kind === 'none' ? coproc.kind : `${coproc.kind}:${coproc.path}`;
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
  // A URL's login is never shown, even in the message that refuses it.
  if (value === undefined)
    throw new ConfigError(name, typeof raw === 'string' ? withoutCredentials(raw) : raw, spec.parser.allowed, source);
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
    coproc: describeCoproc(config.coproc),
    mqttUrl: config.mqttUrl ? withoutUserInfo(config.mqttUrl) : null,
    mqttPassword: config.mqttPassword ? '[set]' : null,
    smtpUrl: config.smtpUrl ? withoutCredentials(config.smtpUrl) : null,
    databaseUrl: config.databaseUrl ? withoutCredentials(config.databaseUrl) : null,
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
