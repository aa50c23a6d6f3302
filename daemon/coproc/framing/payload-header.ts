/**
 * ESP-Hosted's 12-byte `esp_payload_header` (packed, little-endian), the framing of the serial
 * transport:
 *   0 if_type (low nibble) | if_num (high nibble)   1 flags (bit0 MORE_FRAGMENT)
 *   2 len16   4 offset16 (= 12)   6 checksum16   8 seq_num16   10 reserved2   11 reserved3 / packet type
 * The checksum is the 16-bit wrapping sum of header (checksum field zeroed) and payload.
 */
import type { FrameFault } from './faults.js';
import { IncrementalDecoder } from './incremental.js';

export const HEADER_LEN = 12;
export const IF_TYPE = { sta: 0, ap: 1, serial: 2, hci: 3, priv: 4, test: 5 } as const;
const IF_TYPE_LIMIT = 6;
export const FLAG_MORE_FRAGMENT = 0x01;
/** ETH_DATA_LEN: the largest fragment payload either side sends. */
export const MAX_FRAGMENT = 1500;
/** The SPI transaction size bounds every frame: a longer `len` is not a frame. */
const MAX_FRAME_PAYLOAD = 1600 - HEADER_LEN;

export interface PayloadHeader {
  ifType: number;
  ifNum: number;
  flags: number;
  len: number;
  seq: number;
  /** Byte 11: the packet type on the private (4) and HCI (3) interfaces. */
  packetType: number;
}

export function checksum(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum = (sum + bytes[i]) & 0xffff;
  return sum;
}

export function encodeFrame(header: Omit<PayloadHeader, 'len'>, payload: Uint8Array): Buffer {
  const frame = Buffer.alloc(HEADER_LEN + payload.length);
  frame[0] = (header.ifType & 0x0f) | ((header.ifNum & 0x0f) << 4);
  frame[1] = header.flags;
  frame.writeUInt16LE(payload.length, 2);
  frame.writeUInt16LE(HEADER_LEN, 4);
  frame.writeUInt16LE(header.seq & 0xffff, 8);
  frame[11] = header.packetType;
  frame.set(payload, HEADER_LEN);
  frame.writeUInt16LE(checksum(frame), 6);
  return frame;
}

/**
 * Splits one message into ≤1500-byte fragments on the serial interface, MORE_FRAGMENT on all but
 * the last. `seqOf(i)` numbers fragment i: the host gives all fragments of a message one number
 * (the device's reassembly requires it), the device numbers each fragment.
 */
export function fragment(message: Uint8Array, seqOf: (index: number) => number): Buffer[] {
  const frames: Buffer[] = [];
  const count = Math.max(1, Math.ceil(message.length / MAX_FRAGMENT));
  for (let i = 0; i < count; i++) {
    const part = message.subarray(i * MAX_FRAGMENT, (i + 1) * MAX_FRAGMENT);
    const flags = i < count - 1 ? FLAG_MORE_FRAGMENT : 0;
    frames.push(encodeFrame({ ifType: IF_TYPE.serial, ifNum: 0, flags, seq: seqOf(i), packetType: 0 }, part));
  }
  return frames;
}

export interface PacketHandlers {
  packet(header: PayloadHeader, payload: Buffer): void;
  fault(fault: FrameFault, detail: string): void;
}

/** Incremental decoder of header frames; skips byte by byte to the next valid header after garbage. */
export class PayloadHeaderDecoder extends IncrementalDecoder {
  constructor(private readonly handlers: PacketHandlers) {
    super((fault, detail) => handlers.fault(fault, detail));
  }

  protected parse(pos: number): number {
    while (this.buffer.length - pos >= HEADER_LEN) {
      const b = this.buffer;
      const len = b.readUInt16LE(pos + 2);
      const structural =
        (b[pos] & 0x0f) < IF_TYPE_LIMIT && b.readUInt16LE(pos + 4) === HEADER_LEN && len <= MAX_FRAME_PAYLOAD;
      if (!structural) {
        pos = this.resync(pos);
        continue;
      }
      if (b.length - pos < HEADER_LEN + len) break;
      const end = pos + HEADER_LEN + len;
      const expected = b.readUInt16LE(pos + 6);
      const actual = (checksum(b, pos, end) - b[pos + 6] - b[pos + 7] + 0x20000) & 0xffff;
      if (actual !== expected) {
        this.handlers.fault('bad_checksum', `checksum ${hex(actual)} instead of ${hex(expected)}`);
        pos = this.resync(pos);
        continue;
      }
      this.flushSkipped();
      if (len > 0) {
        const header: PayloadHeader = {
          ifType: b[pos] & 0x0f,
          ifNum: b[pos] >> 4,
          flags: b[pos + 1],
          len,
          seq: b.readUInt16LE(pos + 8),
          packetType: b[pos + 11],
        };
        this.handlers.packet(header, Buffer.from(b.subarray(pos + HEADER_LEN, end)));
      }
      pos = end;
    }
    return pos;
  }

  /** No sync bytes in this framing: the next byte may start a header. */
  protected resync(pos: number): number {
    return this.skipTo(pos, pos + 1);
  }
}

const hex = (value: number) => `0x${value.toString(16).padStart(4, '0')}`;
