/**
 * `esps:/dev/esps0`: the ESP-Hosted Linux driver's control character device, a byte stream of TLV
 * frames. One opener at a time (the driver answers EBUSY to a second one).
 *
 * A terminal (a pseudo-terminal standing in for the device in tests) is read through libuv's tty
 * handle, which polls; the real driver node is not a tty, and is read with blocking reads in the
 * thread pool, which the driver's poll-less read path is made for.
 */
import { closeSync, constants, createReadStream, openSync, write } from 'node:fs';
import { isatty, ReadStream as TtyReadStream } from 'node:tty';
import type { Readable } from 'node:stream';
import { ReopeningTransport, type PortCallbacks, type PortHandle, type TransportOptions } from './types.js';

export class EspsTransport extends ReopeningTransport {
  readonly description: string;
  protected readonly devicePath: string;

  constructor(private readonly path: string, options: TransportOptions) {
    super(options);
    this.devicePath = path;
    this.description = `esps:${path}`;
  }

  protected async openPort(callbacks: PortCallbacks): Promise<PortHandle> {
    let fd = openSync(this.path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
    let stream: Readable;
    if (isatty(fd)) {
      const tty = new TtyReadStream(fd);
      tty.setRawMode(true);
      stream = tty;
    } else {
      closeSync(fd);
      fd = openSync(this.path, constants.O_RDWR | constants.O_NOCTTY);
      stream = createReadStream('', { fd, autoClose: false, highWaterMark: 8192 });
    }
    let closing = false;
    stream.on('data', (chunk: Buffer) => callbacks.data(chunk));
    const lost = (reason: string) => { if (!closing) callbacks.lost(reason); };
    stream.on('error', (error: Error) => lost(error.message));
    stream.on('end', () => lost('device closed'));
    const writer = new FdWriter(fd, lost);
    return {
      write: (bytes) => writer.write(bytes),
      close: async () => {
        closing = true;
        writer.stop();
        stream.destroy();
        try { closeSync(fd); } catch { /* already closed by the stream */ }
      },
    };
  }
}

/** Ordered writes to a possibly non-blocking descriptor: retries a full buffer (EAGAIN) shortly after. */
class FdWriter {
  private queue: Buffer[] = [];
  private busy = false;
  private stopped = false;

  constructor(private readonly fd: number, private readonly lost: (reason: string) => void) {}

  write(bytes: Buffer): void {
    this.queue.push(bytes);
    if (!this.busy) this.next();
  }

  stop(): void {
    this.stopped = true;
    this.queue = [];
  }

  private next(): void {
    const head = this.queue[0];
    if (!head || this.stopped) { this.busy = false; return; }
    this.busy = true;
    write(this.fd, head, 0, head.length, null, (error, written) => {
      if (this.stopped) return;
      if (error && (error as NodeJS.ErrnoException).code === 'EAGAIN') {
        setTimeout(() => this.next(), 2);
        return;
      }
      if (error) { this.busy = false; this.lost(error.message); return; }
      if (written < head.length) this.queue[0] = head.subarray(written);
      else this.queue.shift();
      this.next();
    });
  }
}
