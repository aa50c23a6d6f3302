/**
 * Reads a non-blocking character device (the ESP-Hosted driver's /dev/esps0, which supports poll and
 * answers EAGAIN when empty) the way serialport reads its ports: read until EAGAIN, then wait for
 * readability from the event loop (serialport's own poller, a libuv poll handle). A blocking read
 * instead held one of libuv's few pool threads for as long as the device stayed quiet: SQLite and
 * file reads had one thread fewer, each reopen after a lost link left another read behind, and at
 * exit Node waited for the held thread (a stop took until the next byte or systemd's kill).
 */
import { read } from 'node:fs';
import { Poller } from '@serialport/bindings-cpp/dist/poller.js';

const CHUNK_BYTES = 8192;

export class PolledReader {
  private readonly poller: Poller;
  private stopped = false;

  constructor(
    private readonly fd: number,
    private readonly onData: (chunk: Buffer) => void,
    private readonly onLost: (reason: string) => void,
  ) {
    this.poller = new Poller(fd);
  }

  start(): void {
    this.next(Buffer.allocUnsafe(CHUNK_BYTES));
  }

  /** Stops reading; the caller closes the descriptor. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    // Stopped first: a started poll handle would keep the event loop (and the process) alive.
    this.poller.stop();
    this.poller.destroy();
  }

  /** Reads into `buffer`, kept for the next attempt while the device is empty (EAGAIN). */
  private next(buffer: Buffer): void {
    if (this.stopped) return;
    read(this.fd, buffer, 0, CHUNK_BYTES, null, (error, bytes) => {
      if (this.stopped) return;
      if (error?.code === 'EAGAIN' || error?.code === 'EWOULDBLOCK') {
        this.poller.once('readable', (pollError) => {
          if (this.stopped) return;
          if (pollError) this.onLost(pollError.message);
          else this.next(buffer);
        });
        return;
      }
      if (error) return this.onLost(error.message);
      if (bytes === 0) return this.onLost('device closed');
      // The chunk handed on keeps its bytes: the next read gets a buffer of its own.
      this.onData(buffer.subarray(0, bytes));
      this.next(Buffer.allocUnsafe(CHUNK_BYTES));
    });
  }
}
