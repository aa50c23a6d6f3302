/** Builds the transport named by the configuration (`NESTBOX_COPROC`). */
import type { CoprocTarget } from '../../config.js';
import type { FramingKind } from '../framing/index.js';
import { Simulator, type SimulatorOptions } from '../sim/index.js';
import { EspsTransport } from './esps.js';
import { SimTransport } from './memory.js';
import { SerialTransport } from './serial.js';
import type { Transport, TransportOptions } from './types.js';

export type { Transport } from './types.js';

export interface BuiltTransport {
  transport: Transport;
  framing: FramingKind;
  /** The embedded simulator when the target is `sim`, for its scenario controls. */
  simulator: Simulator | null;
}

/** The embedded simulator speaks the serial framing: the more demanding of the two. */
export const SIM_FRAMING: FramingKind = 'serial';

export function createTransport(
  target: CoprocTarget,
  options: TransportOptions & { sim?: SimulatorOptions },
): BuiltTransport {
  switch (target.kind) {
    case 'sim': {
      const simulator = new Simulator({ framing: SIM_FRAMING, ...options.sim });
      return { transport: new SimTransport(simulator), framing: simulator.framing, simulator };
    }
    case 'serial':
      return { transport: new SerialTransport(target.path, target.baud, options), framing: 'serial', simulator: null };
    case 'esps':
      return { transport: new EspsTransport(target.path, options), framing: 'esps', simulator: null };
  }
}
