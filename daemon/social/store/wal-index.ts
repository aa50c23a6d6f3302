/**
 * SQLite's data version read from the WAL index itself (the `-shm` file every connection of every
 * process maps), without a statement: a few microseconds on the calling thread instead of a turn
 * through libuv's pool, which under load waits for the pool thread and then for the main thread to
 * be scheduled again. The WAL-index header (https://www.sqlite.org/walformat.html, "The WAL-Index
 * Header") is rewritten by every commit, of any connection or process: its change counter, last
 * valid frame and salts then differ. SQLite keeps two copies and writes the second first; a read
 * that finds them different met a commit half-way and is tried again, as SQLite's own readers do.
 */
import { closeSync, openSync, readSync } from 'node:fs';

/** Both copies of the header: 48 bytes each, at the start of the file. */
const HEADER_BYTES = 48;
/** The copy's `isInit` byte: 0 until a connection has built the index. */
const IS_INIT_OFFSET = 12;
/** What changes with a commit: counter, page size, last frame, page count, checksums, salts. */
const VERSION_START = 8;
const READ_ATTEMPTS = 4;

export class WalIndex {
  private readonly buffer = Buffer.alloc(2 * HEADER_BYTES);

  private constructor(private fd: number | null) {}

  /** The index of the WAL database `filename`, or null when it has none (not in WAL mode, or in memory). */
  static open(filename: string): WalIndex | null {
    try {
      return new WalIndex(openSync(`${filename}-shm`, 'r'));
    } catch {
      return null;
    }
  }

  /**
   * A text that changes with every commit made before this call; null when the index cannot say
   * (not built yet, or a commit kept rewriting it during every attempt): ask SQLite instead.
   */
  version(): string | null {
    if (this.fd === null) return null;
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const read = readSync(this.fd, this.buffer, 0, this.buffer.length, 0);
      if (read < this.buffer.length || this.buffer[IS_INIT_OFFSET] === 0) return null;
      if (this.buffer.compare(this.buffer, HEADER_BYTES, 2 * HEADER_BYTES, 0, HEADER_BYTES) === 0)
        return this.buffer.toString('base64', VERSION_START, HEADER_BYTES);
    }
    return null;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
