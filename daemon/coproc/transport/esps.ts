/**
 * `esps:/dev/esps0`: the ESP-Hosted Linux driver's control character device, a byte stream of TLV
 * frames. One opener at a time (the driver answers EBUSY to a second one).
 *
 * A terminal (a pseudo-terminal standing in for the device in tests) is read through libuv's tty
 * handle; the real driver node is not a tty: it is read without blocking and polled for
 * readability (polled-reader.ts), as the driver supports (O_NONBLOCK answers EAGAIN, poll works).
 */
import { closeSync, constants, openSync, readSync, write } from 'node:fs';
import { isatty, ReadStream as TtyReadStream } from 'node:tty';
import { ReopeningTransport, type PortCallbacks, type PortHandle, type TransportOptions } from './types.js';
import { lazy } from '../../lib/on-first-use.js';

/**
 * The driver's largest write (ESP_SERIAL_MAX_TX: 8192 less its 12-byte payload header and 8 bytes).
 * It answers a larger one with 0 bytes written and no error, which a writer retrying partial writes
 * would retry forever.
 */
export const ESPS_MAX_WRITE = 8192 - (12 + 8);

/**
 * The driver's receive ring (esp_serial.c ESP_RX_RB_SIZE; esp_rb.c keeps one byte free): what a
 * previous opener left unread is at most this much, and it survives close and open (the ring is
 * emptied only when the module is unloaded).
 */
export const ESPS_RING_BYTES = 8192 - 1;
/** A chip that keeps talking while we drain does not hold the open forever. */
const DRAIN_LIMIT_BYTES = 4 * ESPS_RING_BYTES;

/** serialport's native poller, loaded only by a box that uses this transport. */
const polledReader = lazy('the esps poller (@serialport/bindings-cpp)', () => import('./polled-reader.js'));

export class EspsTransport extends ReopeningTransport {
  readonly description: string;
  protected readonly devicePath: string;

  constructor(
    private readonly path: string,
    options: TransportOptions,
  ) {
    super(options);
    this.devicePath = path;
    this.description = `esps:${path}`;
  }

  /** A message the driver would refuse is never written: it is refused here, after the caller's turn. */
  override write(bytes: Buffer): boolean {
    if (bytes.length <= ESPS_MAX_WRITE) return super.write(bytes);
    if (!this.isOpen) return false;
    this.refuse(`a ${bytes.length}-byte message is more than the driver's ${ESPS_MAX_WRITE}-byte limit`);
    return true;
  }

  private refuse(reason: string): void {
    process.nextTick(() => this.emit('refused', reason));
  }

  protected async openPort(callbacks: PortCallbacks): Promise<PortHandle> {
    const { PolledReader } = await polledReader();
    const fd = openSync(this.path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
    // Answers and events a previous opener left in the ring would be taken for answers to our
    // first requests: they go before the link is reported up.
    let drained: number;
    try {
      drained = drainStale(fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    if (drained > 0)
      this.log.info('dropped bytes a previous opener of the device left unread', {
        transport: this.description,
        bytes: drained,
      });
    let closing = false;
    const lost = (reason: string) => {
      if (!closing) callbacks.lost(reason);
    };
    const reader = isatty(fd) ? ttyReader(fd, callbacks.data, lost) : new PolledReader(fd, callbacks.data, lost);
    reader.start();
    const writer = new FdWriter(fd, lost, (reason) => this.refuse(reason));
    return {
      write: (bytes) => writer.write(bytes),
      close: async () => {
        closing = true;
        writer.stop();
        reader.stop();
        try {
          closeSync(fd);
        } catch {
          /* already closed by the tty stream */
        }
      },
    };
  }
}

/** Reads and drops what is waiting on a non-blocking descriptor, up to EAGAIN; returns the count. */
function drainStale(fd: number): number {
  const scratch = Buffer.allocUnsafe(ESPS_RING_BYTES + 1);
  let total = 0;
  while (total < DRAIN_LIMIT_BYTES) {
    let bytes: number;
    try {
      bytes = readSync(fd, scratch, 0, scratch.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EWOULDBLOCK') break;
      throw error;
    }
    if (bytes === 0) break;
    total += bytes;
  }
  return total;
}

/** A terminal read through libuv's tty handle, in raw mode. */
function ttyReader(
  fd: number,
  onData: (chunk: Buffer) => void,
  onLost: (reason: string) => void,
): { start(): void; stop(): void } {
  const tty = new TtyReadStream(fd);
  tty.setRawMode(true);
  return {
    start: () => {
      tty.on('data', (chunk: Buffer) => onData(chunk));
      tty.on('error', (error: Error) => onLost(error.message));
      tty.on('end', () => onLost('device closed'));
    },
    stop: () => {
      tty.destroy();
    },
  };
}

/** Ordered writes to a possibly non-blocking descriptor: retries a full buffer (EAGAIN) shortly after. */
class FdWriter {
  private queue: Buffer[] = [];
  private busy = false;
  private stopped = false;

  constructor(
    private readonly fd: number,
    private readonly lost: (reason: string) => void,
    private readonly refused: (reason: string) => void,
  ) {}

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
    if (!head || this.stopped) {
      this.busy = false;
      return;
    }
    this.busy = true;
    write(this.fd, head, 0, head.length, null, (error, written) => {
      if (this.stopped) return;
      if (error && error.code === 'EAGAIN') {
        setTimeout(() => this.next(), 2);
        return;
      }
      if (error) {
        this.busy = false;
        this.lost(error.message);
        return;
      }
      if (written === 0) {
        // The driver's answer to a message over its limit: drop it rather than retry forever.
        this.queue.shift();
        this.refused(`the driver took none of a ${head.length}-byte message`);
      } else if (written < head.length) this.queue[0] = head.subarray(written);
      else this.queue.shift();
      this.next();
    });
  }
}
