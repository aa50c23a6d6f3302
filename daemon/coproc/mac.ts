/**
 * MAC addresses travel as 17 ASCII characters "xx:xx:xx:xx:xx:xx" (lowercase, as the firmware's
 * MACSTR prints them) inside protobuf `bytes` fields, not as 6 raw bytes.
 */
const MAC_TEXT = /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/;

export function isMac(text: string): boolean {
  return MAC_TEXT.test(text.toLowerCase());
}

/** Text → the 17 ASCII bytes the device expects (lowercase). */
export function macToWire(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text.toLowerCase(), 'ascii'));
}

/** The ASCII bytes of a `mac`/`bssid` field → lowercase text (as received, trimmed of NULs). */
export function macFromWire(bytes: Uint8Array | null | undefined): string {
  if (!bytes) return '';
  return Buffer.from(bytes).toString('latin1').replace(/\0+$/, '').toLowerCase();
}

/** The firmware's sscanf("%2x:%2x:…") reading of a MAC string; null when it does not parse. */
export function parseMacOctets(text: string): number[] | null {
  const parts = text.split(':');
  if (parts.length !== 6 || !parts.every((part) => /^[0-9a-fA-F]{1,2}$/.test(part))) return null;
  return parts.map((part) => parseInt(part, 16));
}

export function formatMac(octets: readonly number[]): string {
  return octets.map((octet) => octet.toString(16).padStart(2, '0')).join(':');
}
