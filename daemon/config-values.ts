/**
 * The configuration's value parsers: what each kind of setting accepts (`allowed`, the text of the
 * error) and how a raw value — a JSON value from the file, or text from the environment — becomes
 * the typed one. The table of keys that uses them is daemon/config.ts.
 */
import { isCronExpression } from './lifecycle/cron-expression.js';
import { postgresUrlProblem } from './store/database-url.js';
import type { AttemptLimit, CoprocSetting, CoprocTarget, MqttProtocol } from './config.js';
import { parseRelease } from './coproc/release.js';

export type Parser<T> = { allowed: string; parse(raw: unknown, fromEnv: boolean): T | undefined };

export const nonEmpty = (allowed: string): Parser<string> => ({
  allowed,
  parse: (raw) => (typeof raw === 'string' && raw.trim() !== '' ? raw : undefined),
});

export const optionalText = (allowed = 'a string'): Parser<string | null> => ({
  allowed,
  parse: (raw) => (raw === null || raw === '' ? null : typeof raw === 'string' ? raw : undefined),
});

export const integer = (
  min: number,
  max: number,
  allowed = `a whole number from ${min} to ${max}`,
): Parser<number> => ({
  allowed,
  parse(raw, fromEnv) {
    const value = fromEnv && typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : raw;
    return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : undefined;
  },
});

export const positiveNumber = (min: number, max: number): Parser<number> => ({
  allowed: `a number from ${min} to ${max}`,
  parse(raw, fromEnv) {
    const value = fromEnv && typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
    return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : undefined;
  },
});

export const ipv4Address: Parser<string | null> = {
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
export const interfaceName: Parser<string> = {
  allowed: 'a network interface name (1 to 15 letters, digits, -, _ or .)',
  parse: (raw) =>
    typeof raw === 'string' && /^[A-Za-z0-9_.-]{1,15}$/.test(raw) && raw !== '.' && raw !== '..' ? raw : undefined,
};

/** One DNS label (RFC 1123): announced as <hostname>.local. */
export const hostLabel: Parser<string> = {
  allowed: 'a host name label: 1 to 63 letters, digits or -, not starting or ending with -',
  parse: (raw) =>
    typeof raw === 'string' && /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(raw)
      ? raw.toLowerCase()
      : undefined,
};

export const boolean: Parser<boolean> = {
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

export const oneOf = <T extends string>(values: readonly T[]): Parser<T> => ({
  allowed: `one of ${values.join(', ')}`,
  parse: (raw) => (typeof raw === 'string' && (values as readonly string[]).includes(raw) ? (raw as T) : undefined),
});

export const httpUrl = (allowed: string): Parser<string> => ({
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

export const BASE_URL = httpUrl('an http:// or https:// URL without query');

/** The instance's base URL as the configuration takes it (no trailing slash), or undefined. */
export function parseBaseUrl(raw: string): string | undefined {
  return BASE_URL.parse(raw, true);
}

/**
 * The streaming server's URL: Mastodon's setting takes the ws:// or wss:// form, apps may be told
 * the http:// one; kept as http(s) (the API gives clients the ws form of it).
 */
export const streamingUrl = (allowed: string): Parser<string> => {
  const http = httpUrl(allowed);
  return {
    allowed,
    parse(raw, fromEnv) {
      return http.parse(typeof raw === 'string' ? raw.replace(/^ws(s?):\/\//i, 'http$1://') : raw, fromEnv);
    },
  };
};

/** A URL with one of `protocols` (and a host), or empty for "off". */
export const optionalUrl = (protocols: readonly string[], allowed: string): Parser<string | null> => ({
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

export const mqttUrl = optionalUrl(
  ['mqtt:', 'mqtts:', 'ws:', 'wss:'],
  'an mqtt://, mqtts://, ws:// or wss:// URL, or empty for MQTT off',
);
export const smtpUrl = optionalUrl(
  ['smtp:', 'smtps:'],
  'an smtp:// or smtps:// URL (user:password@host:port), or empty for no mail',
);

/** PostgreSQL (daemon/store/database-url.ts), or empty for SQLite under the data directory. */
export const databaseUrl: Parser<string | null> = {
  allowed:
    'a postgres:// URL (postgres://user:password@host:5432/database; TLS as libpq names it, ?sslmode=verify-full&sslrootcert=FILE), or empty for SQLite in the data directory',
  parse: (raw) =>
    raw === null || raw === '' ? null : typeof raw === 'string' && !postgresUrlProblem(raw) ? raw : undefined,
};

export const mqttProtocol: Parser<MqttProtocol> = {
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
export const mqttClientId: Parser<string | null> = {
  allowed: '1 to 64 printable ASCII characters without spaces, or empty for nestbox-<device id>',
  parse: (raw) =>
    raw === null || raw === '' ? null : typeof raw === 'string' && /^[\x21-\x7e]{1,64}$/.test(raw) ? raw : undefined,
};

export const countryCode: Parser<string | null> = {
  allowed: "a two-letter country code (ISO 3166-1, e.g. DE), or empty for the firmware's own",
  parse: (raw) =>
    raw === null || raw === ''
      ? null
      : typeof raw === 'string' && /^[A-Za-z]{2}$/.test(raw.trim())
        ? raw.trim().toUpperCase()
        : undefined,
};

export const cronExpression: Parser<string> = {
  allowed: 'a cron expression (five or six fields), or "off"',
  parse: (raw) => (typeof raw === 'string' && (raw === 'off' || isCronExpression(raw)) ? raw : undefined),
};

export const topicPart = (allowed: string, allowEmpty: boolean): Parser<string> => ({
  allowed,
  parse(raw) {
    if (typeof raw !== 'string') return undefined;
    if (raw === '') return allowEmpty ? raw : undefined;
    // eslint-disable-next-line no-control-regex -- NUL is what MQTT forbids in a topic: this is the check.
    return /^[^#+\u0000]+$/.test(raw) && !raw.startsWith('/') && !raw.endsWith('/') ? raw : undefined;
  },
});

export const passphrase: Parser<string | null> = {
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

/** `none`: an instance without a box (no link, connectivity, network layer or device half of MQTT). */
export const coproc: Parser<CoprocSetting> = {
  allowed: 'sim, serial:/dev/PATH[?baud=N], esps:/dev/PATH, or none (no coprocessor)',
  parse: (raw) => (raw === 'none' ? { kind: 'none' } : typeof raw === 'string' ? parseCoprocTarget(raw) : undefined),
};

export const optionalPort: Parser<number | null> = {
  allowed: 'a port number from 1 to 65535, or empty for none',
  parse(raw, fromEnv) {
    if (raw === null || raw === '') return null;
    return integer(1, 65535).parse(raw, fromEnv);
  },
};

export const espHostedRelease: Parser<string | null> = {
  allowed: 'an ESP-Hosted-FG release as the driver names it (FG-1.0.0.0.0), or empty',
  parse: (raw) =>
    raw === null || raw === '' ? null : typeof raw === 'string' ? (parseRelease(raw) ?? undefined) : undefined,
};

export const commandLine: Parser<string[]> = {
  allowed: 'a program (absolute path or name) and its arguments separated by spaces',
  parse(raw) {
    const words = typeof raw === 'string' ? raw.trim().split(/\s+/).filter(Boolean) : Array.isArray(raw) ? raw : [];
    return words.length > 0 && words.every((word) => typeof word === 'string' && word !== '' && !/[\0\n]/.test(word))
      ? (words as string[])
      : undefined;
  },
};

export const attemptLimit: Parser<AttemptLimit> = {
  allowed: 'ATTEMPTS/SECONDS, two whole numbers from 1 to 86400 (e.g. 25/300)',
  parse(raw) {
    const match = typeof raw === 'string' ? /^(\d{1,5})\/(\d{1,5})$/.exec(raw.trim()) : null;
    if (!match) return undefined;
    const [limit, periodS] = [Number(match[1]), Number(match[2])];
    return limit >= 1 && limit <= 86400 && periodS >= 1 && periodS <= 86400 ? { limit, periodS } : undefined;
  },
};
