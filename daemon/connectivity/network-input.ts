import { ssidText as decodeSsid } from '../coproc/convert.js';

/**
 * Rules for what a person types as a Wi-Fi network: SSIDs are bytes (1–32, UTF-8 or not, given
 * as text or as hex from the scan list), passphrases are 8–63 printable ASCII characters or 64
 * hex digits (IEEE 802.11i), or empty for an open network. Every refusal names the field and says
 * what is allowed; the passphrase itself never appears in a message.
 */
export class NetworkInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'NetworkInputError';
  }
}

export interface NetworkInput {
  ssid: Uint8Array;
  passphrase: string;
  hidden: boolean;
}

const SSID_MAX_BYTES = 32;

export function parseNetworkInput(body: unknown): NetworkInput {
  if (!body || typeof body !== 'object')
    throw new NetworkInputError('ssid', 'Send the network as a JSON object: {"ssid", "password", "hidden"}');
  const fields = body as Record<string, unknown>;
  const ssid = parseSsid(fields.ssid, fields.ssid_hex);
  const passphrase = parsePassphrase(fields.password ?? fields.passphrase ?? '');
  const hidden = parseFlag(fields.hidden);
  return { ssid, passphrase, hidden };
}

export function parseSsid(text: unknown, hex: unknown): Uint8Array {
  let bytes: Uint8Array;
  if (typeof hex === 'string' && hex !== '') {
    if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex))
      throw new NetworkInputError('ssid_hex', 'ssid_hex must be an even number of hex digits');
    bytes = Uint8Array.from(Buffer.from(hex, 'hex'));
  } else if (typeof text === 'string') {
    bytes = new TextEncoder().encode(text);
  } else {
    throw new NetworkInputError('ssid', 'The network name (ssid) is missing');
  }
  if (bytes.length === 0) throw new NetworkInputError('ssid', 'The network name (ssid) is empty');
  if (bytes.length > SSID_MAX_BYTES) {
    throw new NetworkInputError(
      'ssid',
      `A network name is at most ${SSID_MAX_BYTES} bytes; this one is ${bytes.length} (letters outside ASCII take 2–4 bytes each)`,
    );
  }
  if (bytes.every((byte) => byte === 0)) {
    throw new NetworkInputError(
      'ssid',
      'This name is only zero bytes: that is how a hidden network appears in a scan. Type its real name and tick "hidden"',
    );
  }
  return bytes;
}

export function parsePassphrase(value: unknown): string {
  if (typeof value !== 'string') throw new NetworkInputError('password', 'The password must be text');
  if (value === '') return value;
  if (/^[0-9a-fA-F]{64}$/.test(value)) return value;
  if (!/^[\x20-\x7e]*$/.test(value)) {
    throw new NetworkInputError(
      'password',
      'A Wi-Fi password may use letters, digits, spaces and the symbols on a US keyboard (ASCII); it has a character outside those',
    );
  }
  if (value.length < 8 || value.length > 63) {
    throw new NetworkInputError(
      'password',
      `A Wi-Fi password has 8 to 63 characters (or is 64 hex digits); this one has ${value.length}`,
    );
  }
  return value;
}

function parseFlag(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1' || value === 'on') return true;
  if (value === 'false' || value === '0' || value === 'off') return false;
  throw new NetworkInputError('hidden', 'hidden must be true or false');
}

/**
 * An SSID for display: its text (UTF-8, else Latin-1), with control characters (and then
 * backslashes) as \xNN escapes, so a name can neither break a log line nor pass for another.
 */
export function ssidText(bytes: Uint8Array): string {
  const text = decodeSsid(bytes);
  if (!CONTROL.test(text)) return text;
  return text.replace(ESCAPED, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

// eslint-disable-next-line no-control-regex -- C0 and C1 control characters are what gets escaped.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex -- the same, with the backslash that starts an escape.
const ESCAPED = /[\u0000-\u001f\u005c\u007f-\u009f]/g;

/** The same network name: SSIDs are bytes, compared as such. */
export function sameSsid(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b));
}

export function ssidHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
