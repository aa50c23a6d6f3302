/**
 * The protocomm "pserial" TLV that wraps every CtrlMsg on the control path:
 *   01 len16le(8) "ctrlResp"|"ctrlEvnt" 02 len16le(N) <N bytes of CtrlMsg>
 * Requests go out under ctrlResp (as the host library does); responses come back under ctrlResp,
 * events under ctrlEvnt. The decoder is incremental, bounded and resynchronises after garbage.
 */
import type { Endpoint, FrameHandlers } from './faults.js';
import { IncrementalDecoder } from './incremental.js';

export const TLV_TYPE_EPNAME = 0x01;
export const TLV_TYPE_DATA = 0x02;
export const TLV_PREFIX_LEN = 14;
const EP_LEN = 8;
const ENDPOINTS: readonly Endpoint[] = ['ctrlResp', 'ctrlEvnt'];
const EP_BYTES = ENDPOINTS.map((name) => Buffer.from(name, 'ascii'));
/** "01 08 00 c t r l": what every frame starts with, used to find the next frame after garbage. */
const SYNC = Buffer.from([TLV_TYPE_EPNAME, EP_LEN, 0x00, ...Buffer.from('ctrl', 'ascii')]);

export function encodeTlv(endpoint: Endpoint, data: Uint8Array): Buffer {
  if (data.length > 0xffff) throw new RangeError(`a TLV frame carries at most 65535 bytes, not ${data.length}`);
  const frame = Buffer.allocUnsafe(TLV_PREFIX_LEN + data.length);
  frame[0] = TLV_TYPE_EPNAME;
  frame.writeUInt16LE(EP_LEN, 1);
  frame.write(endpoint, 3, 'ascii');
  frame[11] = TLV_TYPE_DATA;
  frame.writeUInt16LE(data.length, 12);
  frame.set(data, TLV_PREFIX_LEN);
  return frame;
}

export interface TlvDecoderOptions {
  /** Largest CtrlMsg accepted; a longer frame is rejected from its header. */
  maxData: number;
}

export class TlvStreamDecoder extends IncrementalDecoder {
  constructor(
    private readonly handlers: FrameHandlers,
    private readonly options: TlvDecoderOptions,
  ) {
    super((fault, detail) => handlers.fault(fault, detail));
  }

  protected parse(pos: number): number {
    while (pos < this.buffer.length) {
      const verdict = this.check(pos);
      if (verdict === 'wait') break;
      if (verdict === 'skip') {
        pos = this.resync(pos);
        continue;
      }
      this.flushSkipped();
      const dataLen = this.buffer.readUInt16LE(pos + 12);
      const end = pos + TLV_PREFIX_LEN + dataLen;
      if (end > this.buffer.length) break;
      // Copy: the caller may keep the frame after the buffer moves on.
      this.handlers.frame(ENDPOINTS[verdict], Buffer.from(this.buffer.subarray(pos + TLV_PREFIX_LEN, end)));
      pos = end;
    }
    return pos;
  }

  /** Endpoint index when a valid prefix starts at `pos`, 'wait' when too few bytes to tell, 'skip' otherwise. */
  private check(pos: number): number | 'wait' | 'skip' {
    const available = this.buffer.length - pos;
    const syncLen = Math.min(available, SYNC.length);
    if (this.buffer.compare(SYNC, 0, syncLen, pos, pos + syncLen) !== 0) return 'skip';
    if (available < TLV_PREFIX_LEN) return 'wait';
    const name = this.buffer.subarray(pos + 3, pos + 3 + EP_LEN);
    const index = EP_BYTES.findIndex((candidate) => candidate.equals(name));
    if (index < 0) {
      this.handlers.fault('bad_endpoint', `unknown endpoint ${JSON.stringify(name.toString('latin1'))}`);
      return 'skip';
    }
    if (this.buffer[pos + 11] !== TLV_TYPE_DATA) return 'skip';
    const dataLen = this.buffer.readUInt16LE(pos + 12);
    if (dataLen > this.options.maxData) {
      this.handlers.fault('too_long', `frame of ${dataLen} bytes exceeds the ${this.options.maxData}-byte limit`);
      return 'skip';
    }
    return index;
  }

  /** Drops bytes up to the next place a frame could start. */
  protected resync(pos: number): number {
    const next = this.buffer.indexOf(TLV_TYPE_EPNAME, pos + 1);
    return this.skipTo(pos, next < 0 ? this.buffer.length : next);
  }
}
