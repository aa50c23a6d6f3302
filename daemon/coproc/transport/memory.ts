/**
 * `sim`: the built-in simulator through an in-memory byte stream, behind the same framing code as
 * a real device. Bytes cross asynchronously, as they would over a wire.
 */
import { EventEmitter } from 'node:events';
import type { Simulator } from '../sim/index.js';
import type { Transport, TransportEvents } from './types.js';

export class SimTransport extends EventEmitter<TransportEvents> implements Transport {
  readonly description = 'sim';
  private open = false;

  constructor(readonly simulator: Simulator) {
    super();
  }

  get isOpen(): boolean {
    return this.open;
  }

  start(): void {
    if (this.open) return;
    this.simulator.attach((bytes) =>
      queueMicrotask(() => {
        if (this.open) this.emit('data', bytes);
      }),
    );
    this.open = true;
    this.simulator.powerOn();
    queueMicrotask(() => this.emit('up'));
  }

  write(bytes: Buffer): boolean {
    if (!this.open) return false;
    setImmediate(() => this.simulator.receive(bytes));
    return true;
  }

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    this.simulator.close();
    this.emit('down', 'closed');
  }
}
