/**
 * What both incremental decoders share: a bounded buffer of not-yet-parsed bytes, the count of
 * bytes skipped while resynchronising (reported once per run), and the inter-byte timeout that
 * gives up a partial frame whose remaining bytes never come.
 */
import type { FrameFault } from './faults.js';

/**
 * A frame's bytes follow each other on the line. When a partial frame has waited this long for
 * its next byte, its header was a lie (a corrupted length) or its tail was lost: it is dropped and
 * the parser resynchronises, instead of swallowing the frames that follow.
 */
export const INTER_BYTE_TIMEOUT_MS = 500;

export abstract class IncrementalDecoder {
  protected buffer: Buffer = Buffer.alloc(0);
  private skipped = 0;
  private lastChunkAt = 0;
  private staleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly reportFault: (fault: FrameFault, detail: string) => void) {}

  /** Bytes held while waiting for the rest of a frame. */
  get pending(): number {
    return this.buffer.length;
  }

  reset(): void {
    this.buffer = Buffer.alloc(0);
    this.skipped = 0;
    this.cancelStaleCheck();
  }

  push(chunk: Uint8Array, now = performance.now()): void {
    const stale = this.buffer.length > 0 && now - this.lastChunkAt > INTER_BYTE_TIMEOUT_MS;
    this.lastChunkAt = now;
    this.buffer = this.buffer.length
      ? Buffer.concat([this.buffer, chunk])
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    let pos = 0;
    if (stale) {
      this.reportFault('truncated', `a partial frame waited more than ${INTER_BYTE_TIMEOUT_MS} ms for its next byte`);
      pos = this.resync(0);
    }
    pos = this.parse(pos);
    this.buffer = pos >= this.buffer.length ? Buffer.alloc(0) : this.buffer.subarray(pos);
    if (this.buffer.length === 0) this.flushSkipped();
    this.scheduleStaleCheck();
  }

  /** Parses whole frames from `pos`; returns where the unparsed rest begins. */
  protected abstract parse(pos: number): number;

  /** Where, after `pos`, a frame could start; the bytes in between count as skipped. */
  protected abstract resync(pos: number): number;

  protected skipTo(pos: number, to: number): number {
    this.skipped += to - pos;
    return to;
  }

  /** Reports the garbage skipped since the last frame (called when a frame is found). */
  protected flushSkipped(): void {
    if (this.skipped === 0) return;
    this.reportFault('garbage', `skipped ${this.skipped} bytes`);
    this.skipped = 0;
  }

  /** With nothing more arriving, a partial frame is given up after the inter-byte timeout. */
  private scheduleStaleCheck(): void {
    this.cancelStaleCheck();
    if (this.buffer.length === 0) return;
    this.staleTimer = setTimeout(() => {
      this.staleTimer = null;
      this.push(new Uint8Array());
    }, INTER_BYTE_TIMEOUT_MS + 10);
    this.staleTimer.unref();
  }

  private cancelStaleCheck(): void {
    if (this.staleTimer) clearTimeout(this.staleTimer);
    this.staleTimer = null;
  }
}
