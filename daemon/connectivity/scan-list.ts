/**
 * What a scan means for people: one entry per network name (the strongest access point),
 * strongest first, hidden networks left to manual entry; and the channel the setup AP takes.
 */
import type { ScanEntry } from '../coproc/api.js';
import type { ScannedNetwork } from '../device/commands.js';
import { sameSsid, ssidHex, ssidText } from './network-input.js';

export type PortalNetwork = ScannedNetwork & { ssid_hex: string };

export function toScannedNetwork(entries: readonly ScanEntry[]): PortalNetwork[] {
  const strongest = new Map<string, ScanEntry>();
  for (const entry of entries) {
    if (entry.ssidBytes.length === 0 || entry.ssidBytes.every((byte) => byte === 0)) continue;
    const key = ssidHex(entry.ssidBytes);
    const known = strongest.get(key);
    if (!known || entry.rssi > known.rssi) strongest.set(key, entry);
  }
  return [...strongest.values()]
    .sort((a, b) => b.rssi - a.rssi)
    .map((entry) => ({
      ssid: ssidText(entry.ssidBytes),
      ssid_hex: ssidHex(entry.ssidBytes),
      bssid: entry.bssid,
      rssi: entry.rssi,
      channel: entry.channel,
      security: entry.security,
    }));
}

const DEFAULT_CHANNEL = 6;

/** The channel of the strongest saved network in range, else of the strongest network, else 6. */
export function pickSetupChannel(entries: readonly ScanEntry[], saved: readonly Uint8Array[]): number {
  const byStrength = [...entries].sort((a, b) => b.rssi - a.rssi);
  const isSaved = (entry: ScanEntry) => saved.some((ssid) => sameSsid(ssid, entry.ssidBytes));
  const channel = (byStrength.find(isSaved) ?? byStrength[0])?.channel ?? DEFAULT_CHANNEL;
  return channel >= 1 && channel <= 11 ? channel : DEFAULT_CHANNEL;
}
