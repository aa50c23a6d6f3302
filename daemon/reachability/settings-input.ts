/**
 * The owner's reachability settings as the API receives them: a public DNS name the box can hold a
 * certificate for, and optionally the dynamic-DNS login. Anything else is refused field by field.
 */
import { isIP } from 'node:net';
import type { ReachabilitySettings } from './model.js';

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
  if (given.protocol === 'rfc2136')
    throw new SettingsInputError(
      'dyndns.protocol',
      'RFC 2136 updates are not available yet: use dyndns2, or point the name at the box yourself',
    );
  if (given.protocol !== 'dyndns2')
    throw new SettingsInputError('dyndns.protocol', 'dyndns.protocol must be "dyndns2"');
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
