/**
 * The two framings of the control path, for either end of the link.
 *   esps   — a byte stream of TLV frames (the ESP-Hosted Linux driver's /dev/esps0).
 *   serial — TLV frames carried in esp_payload_header frames, fragmented at 1500 bytes.
 * The host end sends requests and receives responses/events; the device end (the simulator) the
 * reverse. Both ends bound every length and resynchronise after garbage.
 */
import type { Endpoint, FrameHandlers } from './faults.js';
import { encodeTlv, TlvStreamDecoder, TLV_PREFIX_LEN } from './tlv.js';
import {
  encodeFrame,
  fragment,
  FLAG_MORE_FRAGMENT,
  IF_TYPE,
  PayloadHeaderDecoder,
  type PayloadHeader,
} from './payload-header.js';
import { decodePrivInit, encodePrivInit, type PrivInit } from './priv-init.js';

export type { Endpoint, FrameFault, FrameHandlers } from './faults.js';
export type FramingKind = 'esps' | 'serial';
export const FRAMING_KINDS: readonly FramingKind[] = ['esps', 'serial'];

/** The device's request reassembly buffer: a whole TLV frame host→device fits in 4096 bytes. */
export const DEVICE_MAX_FRAME = 4096;
export const DEVICE_MAX_DATA = DEVICE_MAX_FRAME - TLV_PREFIX_LEN;
/** The host accepts answers up to this size (a long scan list); the TLV length field allows 65535. */
export const HOST_MAX_DATA = 16384;

export interface Framing {
  readonly kind: FramingKind;
  /** One message (a serialized CtrlMsg) → the bytes to write. */
  encode(endpoint: Endpoint, data: Uint8Array): Buffer;
  push(chunk: Uint8Array): void;
  reset(): void;
}

export interface FramingHandlers extends FrameHandlers {
  /** The device's boot INIT on the private interface (header framing only). */
  privInit?(init: PrivInit): void;
}

export function createFraming(kind: FramingKind, role: 'host' | 'device', handlers: FramingHandlers): Framing {
  const maxData = role === 'host' ? HOST_MAX_DATA : DEVICE_MAX_DATA;
  return kind === 'esps' ? new StreamFraming(handlers, maxData) : new HeaderFraming(role, handlers, maxData);
}

class StreamFraming implements Framing {
  readonly kind = 'esps' as const;
  private readonly decoder: TlvStreamDecoder;

  constructor(handlers: FrameHandlers, maxData: number) {
    this.decoder = new TlvStreamDecoder(handlers, { maxData });
  }

  encode(endpoint: Endpoint, data: Uint8Array): Buffer {
    return encodeTlv(endpoint, data);
  }

  push(chunk: Uint8Array): void {
    this.decoder.push(chunk);
  }

  reset(): void {
    this.decoder.reset();
  }
}

class HeaderFraming implements Framing {
  readonly kind = 'serial' as const;
  private readonly packets: PayloadHeaderDecoder;
  private readonly tlv: TlvStreamDecoder;
  private seq = 0;
  private parts: Buffer[] = [];
  private size = 0;
  private currentSeq: number | null = null;
  private overflowing = false;

  constructor(
    private readonly role: 'host' | 'device',
    private readonly handlers: FramingHandlers,
    private readonly maxData: number,
  ) {
    this.tlv = new TlvStreamDecoder(handlers, { maxData });
    this.packets = new PayloadHeaderDecoder({
      packet: (header, payload) => this.onPacket(header, payload),
      fault: (fault, detail) => handlers.fault(fault, detail),
    });
  }

  encode(endpoint: Endpoint, data: Uint8Array): Buffer {
    const message = encodeTlv(endpoint, data);
    if (this.role === 'host') {
      // One number for every fragment of the message, counted per message from 1.
      this.seq = (this.seq + 1) & 0xffff;
      const seq = this.seq;
      return Buffer.concat(fragment(message, () => seq));
    }
    return Buffer.concat(fragment(message, () => (this.seq = (this.seq + 1) & 0xffff)));
  }

  /** The device's boot announcement on the private interface. */
  encodePrivInit(init?: PrivInit): Buffer {
    return encodeFrame({ ifType: IF_TYPE.priv, ifNum: 0, flags: 0, seq: 0, packetType: 0 }, encodePrivInit(init));
  }

  push(chunk: Uint8Array): void {
    this.packets.push(chunk);
  }

  reset(): void {
    this.packets.reset();
    this.tlv.reset();
    this.dropMessage();
  }

  private onPacket(header: PayloadHeader, payload: Buffer): void {
    if (header.ifType === IF_TYPE.priv) {
      const init = decodePrivInit(payload);
      if (init) this.handlers.privInit?.(init);
      return;
    }
    if (header.ifType !== IF_TYPE.serial) return; // network or HCI traffic: not ours
    if (this.role === 'device' && this.currentSeq !== null && header.seq !== this.currentSeq) {
      // The firmware ends the message being reassembled and drops the stray fragment.
      this.completeMessage();
      return;
    }
    this.currentSeq = header.seq;
    this.append(payload);
    if (!(header.flags & FLAG_MORE_FRAGMENT)) this.completeMessage();
  }

  private append(payload: Buffer): void {
    const limit = this.maxData + TLV_PREFIX_LEN;
    if (this.size + payload.length > limit) {
      if (this.role === 'device') {
        // The firmware silently truncates at its 4096-byte buffer.
        const room = limit - this.size;
        if (room > 0) this.parts.push(payload.subarray(0, room));
        this.size = limit;
        return;
      }
      if (!this.overflowing) this.handlers.fault('too_long', `message exceeds ${limit} bytes`);
      this.overflowing = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(payload);
    this.size += payload.length;
  }

  private completeMessage(): void {
    const message = Buffer.concat(this.parts);
    const overflowed = this.overflowing;
    this.dropMessage();
    if (overflowed) return;
    this.tlv.push(message);
    if (this.tlv.pending > 0) {
      this.handlers.fault('truncated', `message ended inside a frame (${this.tlv.pending} bytes left)`);
      this.tlv.reset();
    }
  }

  private dropMessage(): void {
    this.parts = [];
    this.size = 0;
    this.currentSeq = null;
    this.overflowing = false;
  }
}

export function isHeaderFraming(framing: Framing): framing is Framing & { encodePrivInit(init?: PrivInit): Buffer } {
  return framing.kind === 'serial';
}
