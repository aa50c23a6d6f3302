/**
 * Whether the box may talk to the world. Deliveries pause while it is not: the connectivity
 * manager's DeviceState `connectivity` must be `connected`. Tests and the embedded default can
 * pass another signal (always online, or one they switch).
 */
import { EventEmitter } from 'node:events';
import type { DeviceState } from '../../../device/state.js';

export interface OnlineSignal {
  isOnline(): boolean;
  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: (online: boolean) => void): () => void;
}

/**
 * Online exactly while DeviceState says `connected`; with the network layer on (`needsAddress`)
 * also only once the station interface has its address.
 */
export function deviceOnline(device: DeviceState, needsAddress = false): OnlineSignal {
  const isOnline = () => device.get().connectivity === 'connected' && (!needsAddress || device.get().network !== null);
  return {
    isOnline,
    subscribe(listener) {
      let last = isOnline();
      const onChange = () => {
        const now = isOnline();
        if (now !== last) {
          last = now;
          listener(now);
        }
      };
      device.on('change', onChange);
      return () => device.off('change', onChange);
    },
  };
}

/** A signal switched by hand (tests; a box without a connectivity manager uses `new SwitchableOnline(true)`). */
export class SwitchableOnline implements OnlineSignal {
  private readonly emitter = new EventEmitter();

  constructor(private online: boolean) {}

  isOnline(): boolean {
    return this.online;
  }

  set(online: boolean): void {
    if (online === this.online) return;
    this.online = online;
    this.emitter.emit('change', online);
  }

  subscribe(listener: (online: boolean) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
