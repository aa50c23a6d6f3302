/**
 * The connectivity machine's vocabulary: the time-stamped inputs it takes, the effects it asks the
 * runner to carry out, the phase changes it reports and the snapshot of the facts it keeps.
 */
import type { Connectivity } from '../device/state.js';
import type { ConnectFailure } from './failures.js';

export type MachineInput =
  | { type: 'start'; hasNetworks: boolean }
  | { type: 'tick' }
  | { type: 'link'; up: boolean; reason?: string }
  | { type: 'devInit' }
  /** The owner asked for a coprocessor restart: the radio was taken down, start over. */
  | { type: 'restart' }
  | { type: 'heartbeat' }
  | { type: 'stationDisconnected'; reason: number }
  | { type: 'softApStations'; count: number }
  | { type: 'softApStationLeft' }
  | { type: 'initResult'; epoch: number; ok: boolean; stationUp?: boolean; softApUp?: boolean; error?: string }
  | { type: 'connectResult'; epoch: number; ok: boolean; failure?: ConnectFailure; networksLeft?: boolean }
  | { type: 'softApResult'; epoch: number; started: boolean; ok: boolean; error?: string }
  | { type: 'networksChanged'; hasNetworks: boolean; tryNow: boolean }
  | { type: 'enterSetupMode' }
  /** Network layer on: the station interface got (up) or lost (down) its lease. */
  | { type: 'lease'; up: boolean; reason?: string }
  /** A request to the setup portal arrived from the setup AP's side: a person is setting the box up. */
  | { type: 'portalUsed' };

export type TimedInput = MachineInput & { at: number };

export type PublishedEvent = 'disconnected' | 'setup_ap_started' | 'setup_ap_stopped' | 'coprocessor_reset';

export type Effect =
  | { type: 'initDevice'; epoch: number }
  | { type: 'connect'; epoch: number; attempt: number }
  | { type: 'startSoftAp'; epoch: number }
  | { type: 'stopSoftAp'; epoch: number }
  | { type: 'pollStations'; epoch: number }
  /** Drop the station's association (its lease was lost, or none came). */
  | { type: 'disconnect'; epoch: number }
  | { type: 'publish'; event: PublishedEvent; payload: Record<string, unknown> };

export interface Transition {
  from: Connectivity;
  to: Connectivity;
  cause: string;
  at: number;
}

export type DeviceFact = 'unknown' | 'initialising' | 'ready' | 'lost';
/** `associated`: joined, waiting for a lease (network layer on); `up`: online. */
export type StationFact = 'down' | 'connecting' | 'associated' | 'up';
export type SoftApFact = 'off' | 'starting' | 'on' | 'stopping';

export interface MachineSnapshot {
  phase: Connectivity;
  epoch: number;
  device: DeviceFact;
  station: StationFact;
  softAp: SoftApFact;
  /** Setup mode is wanted (grace period over, nothing saved, or asked by the owner). */
  setupWanted: boolean;
  /** Why setup mode was entered, in words; null outside setup mode. */
  setupReason: string | null;
  phones: number;
  hasNetworks: boolean;
  attempt: number;
  failure: ConnectFailure | null;
  wasConnected: boolean;
  disconnectedSince: number | null;
  connectedSince: number | null;
  lastHeartbeatAt: number | null;
  connectAt: number | null;
  portalUsedAt: number | null;
  /** A network a person submitted waits to be tried. */
  userRequest: boolean;
  /** The owner's setup-mode hold lasts until then. */
  forcedUntil: number | null;
  /** When the station associated and began waiting for a lease. */
  associatedAt: number | null;
}

export interface StepResult {
  effects: Effect[];
  transitions: Transition[];
}
