/**
 * What the outputs (web, MQTT) are handed of the device side: a box's connectivity parts, or the
 * explicit absence of a box (NESTBOX_COPROC=none), so no output holds a part that may be null.
 */
import { NO_COPROCESSOR } from '../device/state.js';
import type { ConnectivityParts } from './subsystem.js';

export interface NoDevice {
  kind: 'none';
  reason: string;
}

export const NO_DEVICE: NoDevice = { kind: 'none', reason: NO_COPROCESSOR };

export type DeviceSide = ConnectivityParts | NoDevice;
