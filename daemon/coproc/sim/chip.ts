/**
 * What the parts of the simulated chip (sim/device.ts and its station, soft AP and OTA) share: the
 * radio's timings, modes and disconnect reasons, the events the chip emits, and the narrow view of
 * the chip each part is built with.
 */
import type { EventEmitter } from 'node:events';
import type { Body } from '../codec.js';
import type { EventName, OperationName } from '../operations.js';
import type { SimClock } from './clock.js';

export type Reply = Body | null;

/** Device-time durations of what the radio does (milliseconds). */
export const SIM_TIMING = {
  bootMs: 300,
  scanMs: 1200,
  connectMs: 800,
  /** Three attempts (each a scan) before the firmware gives up on a network it cannot find. */
  notFoundMs: 3 * 1200,
  /** Handshake timeouts before a wrong passphrase is given up. */
  authFailMs: 3 * 1000,
  beaconTimeoutMs: 3000,
  otaEraseMs: 300,
  otaRebootMs: 5000,
  /** Current firmware: the pause before it tries the stored network again after a disconnect. */
  retryMs: 2000,
} as const;

/** wifi_mode_t: the station and the soft AP are bits of it. */
export const MODE = { none: 0, sta: 1, ap: 2, apsta: 3 } as const;

export const DISCONNECT_REASON = {
  authExpire: 2,
  assocLeave: 8,
  handshakeTimeout: 15,
  beaconTimeout: 200,
  noApFound: 201,
  authFail: 202,
} as const;

/**
 * What changed on the radio, for whoever plays the driver's network interfaces around the
 * simulator (the virtual home sets veth carriers from these). The host never sees them.
 */
export type RadioChange =
  | { radio: 'station'; associated: true; ssid: string; bssid: string; mac: string }
  | { radio: 'station'; associated: false; ssid: string }
  | { radio: 'softap'; active: true; ssid: string; mac: string }
  | { radio: 'softap'; active: false }
  | { radio: 'softap_station'; joined: boolean; mac: string };

export interface SimDeviceEvents {
  /** An event for the host: the link encodes it under ctrlEvnt. */
  event: [EventName, Body];
  /** The device finished booting (the link announces it: PRIV INIT, then Event_DevInit). */
  boot: [];
  /** The device went down for a reboot: the link forgets half-received requests. */
  reset: [reason: string];
  /** A request reached the firmware's handler (for tests that act at that moment). */
  request: [OperationName];
  /** The station associated or left; the soft AP started or stopped; a phone joined or left it. */
  radio: [RadioChange];
}

/** The chip as its parts see it. */
export interface Chip extends Pick<EventEmitter<SimDeviceEvents>, 'emit'> {
  readonly clock: SimClock;
  /** Increases at every reboot: work begun before one is dropped. */
  readonly epoch: number;
  /** The current firmware (2024 on) rather than the documented one. */
  readonly current: boolean;
  readonly macs: { readonly sta: string; readonly ap: string };
  /** The Wi-Fi mode (MODE bits). */
  mode: number;
  /** Turns the station on beside a running soft AP, or alone (what scan and ConnectAP do first). */
  stationOn(): void;
}

export function ok(fields: Body = {}): Body {
  return { resp: 0, ...fields };
}

export function fail(code = -1): Body {
  return { resp: code };
}
