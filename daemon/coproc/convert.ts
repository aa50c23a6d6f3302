/**
 * Friendly values ↔ the numbers and bytes on the wire: Wi-Fi mode, power save, security and
 * bandwidth names, SSIDs, transmit power (the device counts in 0.25 dBm).
 */
import type { BandwidthName, PowerSaveName, SecurityName, WifiInterface, WifiModeName } from './api.js';

const MODES: readonly WifiModeName[] = ['none', 'station', 'softap', 'apsta'];
const POWER_SAVE: readonly PowerSaveName[] = ['none', 'min_modem', 'max_modem'];
const SECURITY = [
  'open',
  'wep',
  'wpa_psk',
  'wpa2_psk',
  'wpa_wpa2_psk',
  'wpa2_enterprise',
  'wpa3_psk',
  'wpa2_wpa3_psk',
] as const;
const BANDWIDTH: Record<BandwidthName, number> = { ht20: 1, ht40: 2 };

export const modeToWire = (mode: WifiModeName): number => indexOrThrow(MODES, mode, 'Wi-Fi mode');
export const modeFromWire = (value: number): WifiModeName | null => MODES[value] ?? null;
export const interfaceToWire = (iface: WifiInterface): number =>
  iface === 'station' ? 1 : iface === 'softap' ? 2 : invalid('interface', iface);
export const powerSaveToWire = (mode: PowerSaveName): number => indexOrThrow(POWER_SAVE, mode, 'power-save mode');
export const powerSaveFromWire = (value: number): PowerSaveName | null => POWER_SAVE[value] ?? null;

export function securityToWire(name: SecurityName): number {
  const index = (SECURITY as readonly string[]).indexOf(name);
  if (index >= 0) return index;
  const match = /^unknown_(\d+)$/.exec(name);
  return match ? Number(match[1]) : invalid('security', name);
}

/** Real scans report IDF auth modes beyond the enum (8 WAPI, 9 OWE…): kept as `unknown_<n>`. */
export const securityFromWire = (value: number): SecurityName => SECURITY[value] ?? `unknown_${value}`;

export const bandwidthToWire = (name: BandwidthName): number => BANDWIDTH[name] ?? invalid('bandwidth', name);
export const bandwidthFromWire = (value: number): BandwidthName => (value === 2 ? 'ht40' : 'ht20');

/** 0.25 dBm units ↔ dBm. */
export const dbmToQuarter = (dbm: number): number => Math.round(dbm * 4);
export const quarterToDbm = (quarter: number): number => quarter / 4;

/**
 * SSID bytes → display text: UTF-8 when they are, else Latin-1, the encoding access points with
 * such names use (every byte is a character in it, so nothing is lost; the bytes stay available).
 */
export function ssidText(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return Buffer.from(bytes).toString('latin1');
  }
}

/** The firmware's GetAPConfig sends the SSID with its C string terminator. */
export function stripNul(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end -= 1;
  return bytes.subarray(0, end);
}

export const utf8 = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'utf8'));
export const bytesOf = (value: unknown): Uint8Array => (value instanceof Uint8Array ? value : new Uint8Array());

function indexOrThrow<T extends string>(names: readonly T[], name: T, what: string): number {
  const index = names.indexOf(name);
  return index >= 0 ? index : invalid(what, name);
}

export class InvalidArgument extends Error {}

function invalid(what: string, value: unknown): never {
  throw new InvalidArgument(`unknown ${what} ${JSON.stringify(value)}`);
}
