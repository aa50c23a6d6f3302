/**
 * The owner's reachability settings as the API receives them: a public DNS name the box can hold a
 * certificate for, and optionally the dynamic-DNS login. Anything else is refused field by field.
 */
import { isIP } from 'node:net';
import type { DynDnsSettings, ReachabilitySettings } from './model.js';
import { parseServer } from './rfc2136.js';
import { TSIG_ALGORITHMS, type TsigAlgorithm } from './tsig.js';

export class SettingsInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'SettingsInputError';
  }
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const HOME_SUFFIXES = ['.local', '.lan', '.home.arpa', '.localhost', '.internal'];

export function parseName(raw: unknown): string {
  if (typeof raw !== 'string')
    throw new SettingsInputError('name', 'name must be a domain name such as social.example.org');
  const name = raw.trim().toLowerCase().replace(/\.$/, '');
  if (isIP(name))
    throw new SettingsInputError(
      'name',
      'name must be a domain name, not an address: certificates are issued for names',
    );
  const labels = name.split('.');
  if (
    name.length > 253 ||
    labels.length < 2 ||
    !labels.every((label) => LABEL.test(label)) ||
    /^\d+$/.test(labels.at(-1)!)
  )
    throw new SettingsInputError('name', 'name must be a full domain name such as social.example.org');
  if (HOME_SUFFIXES.some((suffix) => name.endsWith(suffix)))
    throw new SettingsInputError('name', 'this name only exists inside a home network: give a public domain name');
  return name;
}

function text(body: Record<string, unknown>, field: string, max = 256): string {
  const value = body[field];
  if (typeof value !== 'string' || value.length === 0 || value.length > max)
    throw new SettingsInputError(`dyndns.${field}`, `dyndns.${field} must be a non-empty string`);
  return value;
}

export function parseSettings(body: unknown): ReachabilitySettings {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new SettingsInputError('name', 'send a JSON object: {"name": "...", "dyndns": {...} | null}');
  const input = body as Record<string, unknown>;
  const name = parseName(input.name);
  const dyndns = input.dyndns;
  if (dyndns === undefined || dyndns === null) return { name, dyndns: null };
  if (typeof dyndns !== 'object' || Array.isArray(dyndns))
    throw new SettingsInputError('dyndns', 'dyndns must be an object or null');
  const given = dyndns as Record<string, unknown>;
  if (given.protocol === 'rfc2136') return { name, dyndns: parseRfc2136(given, name) };
  if (given.protocol !== 'dyndns2')
    throw new SettingsInputError('dyndns.protocol', 'dyndns.protocol must be "dyndns2" or "rfc2136"');
  const url = text(given, 'url', 2048);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SettingsInputError('dyndns.url', 'dyndns.url must be an https:// (or http://) URL');
  }
  if (!['https:', 'http:'].includes(parsed.protocol) || parsed.username || parsed.password || parsed.hash)
    throw new SettingsInputError('dyndns.url', 'dyndns.url must be an https:// (or http://) URL without a login in it');
  return {
    name,
    dyndns: { protocol: 'dyndns2', url, username: text(given, 'username'), password: text(given, 'password') },
  };
}

/** A domain name given as a DNS setting (zone, key name): labels of letters, digits and hyphens. */
function dnsName(given: Record<string, unknown>, field: string): string {
  const value = text(given, field, 253).trim().toLowerCase().replace(/\.$/, '');
  if (!value.split('.').every((label) => /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/.test(label)))
    throw new SettingsInputError(`dyndns.${field}`, `dyndns.${field} must be a domain name such as example.org`);
  return value;
}

function parseRfc2136(given: Record<string, unknown>, name: string): DynDnsSettings {
  const server = text(given, 'server', 300).trim();
  const { host, port } = parseServer(server);
  if (!host || !(isIP(host) || /^[a-z0-9.-]+$/i.test(host)) || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new SettingsInputError(
      'dyndns.server',
      "dyndns.server must be the DNS server's name or address, with :port when not 53",
    );
  const zone = dnsName(given, 'zone');
  if (name !== zone && !name.endsWith(`.${zone}`))
    throw new SettingsInputError('dyndns.zone', `the name ${name} is not inside the zone ${zone}`);
  const algorithm = given.key_algorithm ?? 'hmac-sha256';
  if (typeof algorithm !== 'string' || !(algorithm.toLowerCase() in TSIG_ALGORITHMS))
    throw new SettingsInputError(
      'dyndns.key_algorithm',
      `dyndns.key_algorithm must be one of ${Object.keys(TSIG_ALGORITHMS).join(', ')}`,
    );
  const secret = text(given, 'key_secret', 1024).trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(secret) || Buffer.from(secret, 'base64').length < 8)
    throw new SettingsInputError(
      'dyndns.key_secret',
      "dyndns.key_secret must be the key's secret in base64, as in the key file",
    );
  return {
    protocol: 'rfc2136',
    server,
    zone,
    key_name: dnsName(given, 'key_name'),
    key_algorithm: algorithm.toLowerCase() as TsigAlgorithm,
    key_secret: secret,
  };
}
