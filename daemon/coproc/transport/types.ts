/**
 * A transport moves bytes to and from the coprocessor and keeps the link open: when the device
 * disappears (unplugged, driver reloaded) it reports `down` and reopens with backoff.
 */
import { EventEmitter } from 'node:events';
import { stat } from 'node:fs/promises';
import type { Logger } from '../../log/logger.js';

export interface TransportEvents {
  data: [Buffer];
  up: [];
  /** The link went down, or the device could not be opened (once, until it is up again). */
  down: [reason: string];
  /** The device refused one message's bytes (nothing of it was sent); the link stays up. */
  refused: [reason: string];
}

export interface Transport extends EventEmitter<TransportEvents> {
  /** e.g. "serial:/dev/ttyAMA0" — for logs and the device state. */
  readonly description: string;
  readonly isOpen: boolean;
  start(): void;
  /** Writes one message's bytes; false when the link is down (nothing written). */
  write(bytes: Buffer): boolean;
  close(): Promise<void>;
  /**
   * Closes the device and keeps it closed until resume() (a driver reload needs its device free);
   * `down` reports the reason.
   */
  suspend?(reason: string): Promise<void>;
  /** Opens the device again after suspend(), at once. */
  resume?(): void;
}

/** An opened device: what each kind of transport provides to the reopening logic. */
export interface PortHandle {
  write(bytes: Buffer): void;
  close(): Promise<void>;
}

export interface PortCallbacks {
  data: (chunk: Buffer) => void;
  /** The port went away by itself (not through close()). */
  lost: (reason: string) => void;
}

export interface BackoffOptions {
  /** First retry delay after a failure (default 100 ms). */
  minBackoffMs?: number;
  /** Ceiling of the doubling retry delay (default 5 s). */
  maxBackoffMs?: number;
  /** How often an open device node is checked to still be the one opened (default 500 ms). */
  watchIntervalMs?: number;
}

export interface TransportOptions extends BackoffOptions {
  log: Logger;
}

/** Opens a port, reopens it after it is lost, and turns the two into up/down events. */
export abstract class ReopeningTransport extends EventEmitter<TransportEvents> implements Transport {
  abstract readonly description: string;
  /** The device node, watched while open: a tty that hangs up only says so when written to. */
  protected abstract readonly devicePath: string;
  private port: PortHandle | null = null;
  private watch: NodeJS.Timeout | null = null;
  private readonly watchIntervalMs: number;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private suspended = false;
  private opening = false;
  private started = false;
  private delayMs: number;
  private failures = 0;
  /** Down has been reported since the last up (or since start when the device never opened). */
  private reportedDown = false;
  protected readonly log: Logger;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(options: TransportOptions) {
    super();
    this.log = options.log;
    this.minBackoffMs = options.minBackoffMs ?? 100;
    this.maxBackoffMs = options.maxBackoffMs ?? 5000;
    this.watchIntervalMs = options.watchIntervalMs ?? 500;
    this.delayMs = this.minBackoffMs;
  }

  protected abstract openPort(callbacks: PortCallbacks): Promise<PortHandle>;

  get isOpen(): boolean {
    return this.port !== null;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    void this.attempt();
  }

  write(bytes: Buffer): boolean {
    if (!this.port) return false;
    this.port.write(bytes);
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.releasePort('closed');
  }

  async suspend(reason: string): Promise<void> {
    this.suspended = true;
    if (await this.releasePort(reason))
      this.log.info('coprocessor device closed', { transport: this.description, reason });
  }

  /** Closes the open port (if any) and reports the link down; false when none was open. */
  private async releasePort(reason: string): Promise<boolean> {
    this.stopWatch();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const port = this.port;
    this.port = null;
    if (!port) return false;
    await port.close().catch(() => undefined);
    this.reportedDown = true;
    this.emit('down', reason);
    return true;
  }

  resume(): void {
    if (!this.suspended || this.closed) return;
    this.suspended = false;
    this.delayMs = this.minBackoffMs;
    this.failures = 0;
    if (this.started && !this.timer && !this.opening) void this.attempt();
  }

  private async attempt(): Promise<void> {
    this.timer = null;
    if (this.closed || this.suspended) return;
    this.opening = true;
    let handle: PortHandle;
    let lostEarly: string | null = null;
    const identity = await nodeIdentity(this.devicePath);
    const callbacks: PortCallbacks = {
      data: (chunk) => {
        if (this.port === handle) this.emit('data', chunk);
      },
      lost: (reason) => {
        if (!handle) {
          lostEarly = reason;
          return;
        }
        this.onLost(handle, reason);
      },
    };
    try {
      handle = await this.openPort(callbacks);
    } catch (error) {
      this.opening = false;
      this.failures += 1;
      const fields = { transport: this.description, error: (error as Error).message, retry_ms: this.delayMs };
      if (this.failures === 1) this.log.warn('coprocessor device cannot be opened; retrying', fields);
      else this.log.debug('coprocessor device still cannot be opened', fields);
      if (!this.reportedDown) {
        this.reportedDown = true;
        this.emit('down', `cannot open ${this.description}: ${(error as Error).message}`);
      }
      this.schedule();
      return;
    }
    this.opening = false;
    if (this.closed || this.suspended) {
      await handle.close().catch(() => undefined);
      return;
    }
    if (lostEarly) {
      this.schedule();
      return;
    }
    this.port = handle;
    this.failures = 0;
    this.delayMs = this.minBackoffMs;
    this.reportedDown = false;
    this.startWatch(handle, identity);
    this.log.info('coprocessor link up', { transport: this.description });
    this.emit('up');
  }

  /**
   * Unplugging a USB serial adapter or reloading the driver removes the device node; a
   * pseudo-terminal whose other end is gone is replaced by another. Either way the open
   * descriptor is dead even if no read has failed yet.
   */
  private startWatch(handle: PortHandle, identity: string | null): void {
    this.stopWatch();
    if (identity === null) return;
    this.watch = setInterval(() => {
      void nodeIdentity(this.devicePath).then((now) => {
        if (now !== identity)
          this.onLost(handle, now === null ? 'the device node disappeared' : 'the device node was replaced');
      });
    }, this.watchIntervalMs);
    this.watch.unref();
  }

  private stopWatch(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
  }

  private onLost(handle: PortHandle, reason: string): void {
    if (this.port !== handle) return;
    this.port = null;
    this.stopWatch();
    void handle.close().catch(() => undefined);
    this.log.warn('coprocessor link down', { transport: this.description, reason });
    this.reportedDown = true;
    this.emit('down', reason);
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.suspended || this.timer) return;
    this.timer = setTimeout(() => void this.attempt(), this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, this.maxBackoffMs);
  }
}

/** Which device a path leads to (device number and inode, through symlinks); null when none. */
async function nodeIdentity(path: string): Promise<string | null> {
  try {
    const info = await stat(path);
    return `${info.rdev}:${info.ino}`;
  } catch {
    return null;
  }
}
