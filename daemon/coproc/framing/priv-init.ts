/**
 * The boot INIT event on ESP-Hosted's private interface (if_type 4, not protobuf): sent by the device
 * before Event_DevInit on header-framed transports. Payload: event_type 0, event_len, then
 * tag/len/value entries (chip id, SPI clock, capabilities, raw-throughput test flag, and — current
 * firmware only — the firmware version: FW_DATA, 3 bytes of project name then 5 version numbers).
 */
export const PRIV_EVENT_INIT = 0x00;
export const PRIV_TAG = { capability: 0, spiClockMhz: 1, chipId: 2, testRawTp: 3, fwData: 4 } as const;

/** What FW_DATA carries: the project name ("FG") and major1, major2, minor, patch1, patch2. */
export interface PrivFwVersion {
  name: string;
  parts: number[];
}

export interface PrivInit {
  chipId: number | null;
  capabilities: number | null;
  spiClockMhz: number | null;
  /** Present only from the current firmware. */
  fwVersion?: PrivFwVersion | null;
}

const FW_NAME_LEN = 3;
const FW_DATA_LEN = FW_NAME_LEN + 5;

/** The seed-era firmware's INIT for an ESP32, Wi-Fi only, checksums on. */
export function encodePrivInit(init: PrivInit = { chipId: 0x00, capabilities: 0xa0, spiClockMhz: 10 }): Buffer {
  const tlvs: number[] = [];
  if (init.chipId !== null) tlvs.push(PRIV_TAG.chipId, 1, init.chipId);
  if (init.spiClockMhz !== null) tlvs.push(PRIV_TAG.spiClockMhz, 1, init.spiClockMhz);
  if (init.capabilities !== null) tlvs.push(PRIV_TAG.capability, 1, init.capabilities);
  tlvs.push(PRIV_TAG.testRawTp, 1, 0);
  if (init.fwVersion) {
    const name = Buffer.alloc(FW_NAME_LEN);
    name.write(init.fwVersion.name.slice(0, FW_NAME_LEN - 1), 'latin1');
    tlvs.push(PRIV_TAG.fwData, FW_DATA_LEN, ...name, ...init.fwVersion.parts.slice(0, 5).map((n) => n & 0xff));
  }
  return Buffer.from([PRIV_EVENT_INIT, tlvs.length, ...tlvs]);
}

export function decodePrivInit(payload: Uint8Array): PrivInit | null {
  if (payload.length < 2 || payload[0] !== PRIV_EVENT_INIT) return null;
  const end = Math.min(payload.length, 2 + payload[1]);
  const init: PrivInit = { chipId: null, capabilities: null, spiClockMhz: null, fwVersion: null };
  for (let pos = 2; pos + 2 <= end; pos += 2 + payload[pos + 1]) {
    const tag = payload[pos];
    const value = payload[pos + 2];
    if (tag === PRIV_TAG.fwData && payload[pos + 1] === FW_DATA_LEN && pos + 2 + FW_DATA_LEN <= end) {
      init.fwVersion = decodeFwData(payload.subarray(pos + 2, pos + 2 + FW_DATA_LEN));
      continue;
    }
    if (payload[pos + 1] !== 1 || value === undefined) continue;
    if (tag === PRIV_TAG.chipId) init.chipId = value;
    else if (tag === PRIV_TAG.capability) init.capabilities = value;
    else if (tag === PRIV_TAG.spiClockMhz) init.spiClockMhz = value;
  }
  return init;
}

function decodeFwData(bytes: Uint8Array): PrivFwVersion {
  const raw = Buffer.from(bytes.subarray(0, FW_NAME_LEN));
  const nul = raw.indexOf(0);
  return {
    name: raw.subarray(0, nul < 0 ? FW_NAME_LEN : nul).toString('latin1'),
    parts: [...bytes.subarray(FW_NAME_LEN)],
  };
}

/** Chip ids as the ESP-Hosted host driver knows them. */
const CHIP_NAMES: Record<number, string> = {
  0x00: 'ESP32',
  0x02: 'ESP32-S2',
  0x05: 'ESP32-C3',
  0x09: 'ESP32-S3',
  0x0c: 'ESP32-C2',
  0x0d: 'ESP32-C6',
  0x17: 'ESP32-C5',
};

export function chipName(chipId: number | null): string | null {
  return chipId === null ? null : (CHIP_NAMES[chipId] ?? null);
}
