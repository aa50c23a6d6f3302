/**
 * DeviceState: the one model of the box that the connectivity subsystem writes and every output
 * (MQTT, web, systemd STATUS=) reads. Updates are section patches; each one that changes anything
 * emits "change" with the list of changed paths. Discrete happenings go out as "event".
 */
import { EventEmitter } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import type { ScannedNetwork } from './commands.js';
import { initialView, type ReachabilityView } from '../reachability/model.js';

export const CONNECTIVITY_STATES = [
  'starting',
  'connecting',
  'connected',
  'reconnecting',
  'setup_ap',
  'device_lost',
  // An instance without a box (NESTBOX_COPROC=none): set once at start, never left.
  'no_device',
] as const;
export type Connectivity = (typeof CONNECTIVITY_STATES)[number];

export type WifiMode = 'none' | 'station' | 'softap' | 'apsta';
export type LinkState = 'up' | 'down' | 'off';
export type OtaPhase = 'idle' | 'writing' | 'rebooting' | 'done' | 'failed';

export interface WifiState {
  mode: WifiMode | null;
  ssid: string | null;
  bssid: string | null;
  rssi: number | null;
  channel: number | null;
  mac: string | null;
}

export interface SoftApStation {
  mac: string;
  rssi: number | null;
}

export interface SoftApState {
  active: boolean;
  ssid: string | null;
  channel: number | null;
  stations: SoftApStation[];
  /** Why the box is in setup mode (no saved network, grace period over, …); null otherwise. */
  reason: string | null;
}

export interface OtaState {
  phase: OtaPhase;
  bytes: number;
  total: number;
  percent: number;
  error: string | null;
}

export interface CoprocessorState {
  /** The transport: the serial port or driver file open (`up`), closed (`down`), or none (`off`). */
  link: LinkState;
  /** The chip itself answers (initialised, heartbeats in their window); false while lost or not yet heard. */
  responding: boolean;
  transport: string;
  last_heartbeat: string | null;
  heartbeat_number: number | null;
  tx_power_dbm: number | null;
  power_save: string | null;
  firmware: string | null;
  /** The firmware's own version (GetFwVersion or the boot announcement; current firmware only), e.g. "FG-1.0.0.0.0". */
  firmware_version: string | null;
  /** The chip named in the boot announcement, e.g. "ESP32". */
  chip: string | null;
  /** Which ESP-Hosted-FG generation answers: the documented one or the current one (2024 on); null before it answered. */
  firmware_generation: 'documented' | 'current' | null;
  ota: OtaState;
  /** The newest firmware image the owner put on the box (data/firmware/ or the dashboard); null when none. */
  firmware_file: FirmwareFileState | null;
  /** Resets the daemon made of a chip that stopped answering, since start. */
  resets: number;
  /** The last of them (or the last try); null before any. */
  last_reset: ChipResetState | null;
  /** The running firmware's release against the driver's (NESTBOX_ESP_HOSTED_RELEASE). */
  release: ReleaseState;
}

export interface ChipResetState {
  at: string;
  /** Why, in words: how long the chip had not answered. */
  reason: string;
  /** `module_reload` (esps:, through esp-hosted.service) or `simulator` (sim). */
  method: string;
  ok: boolean;
  /** What went wrong when it did not work (the command's exit and message). */
  error: string | null;
}

/**
 * `off`: no driver release configured; `unknown`: the firmware does not tell its release (the
 * documented generation) or has not answered yet; `match` / `mismatch`: compared as the driver does.
 */
export type ReleaseStatus = 'off' | 'unknown' | 'match' | 'mismatch';

export interface ReleaseState {
  status: ReleaseStatus;
  /** NESTBOX_ESP_HOSTED_RELEASE, e.g. "FG-1.0.0.0.0"; null when not configured. */
  driver: string | null;
  /** The release the running firmware reports; null when it reports none. */
  firmware: string | null;
  /** What to do about a mismatch, in words; null otherwise. */
  detail: string | null;
}

export interface FirmwareFileState {
  /** esp_app_desc_t.version of the image. */
  version: string;
  /** esp_app_desc_t.project_name, e.g. "network_adapter". */
  project: string;
  name: string;
  bytes: number;
}

/** The last scan of the air, as people see it (one entry per network name, strongest first). */
export interface ScanState {
  at: string | null;
  networks: ScannedNetwork[];
}

export interface InstanceState {
  accounts: number;
  statuses: number;
  pending_follow_requests: number;
  unread_notifications: number;
}

/** `unknown` until the first check; `low` is below the warning threshold; `full` means writes fail for lack of space. */
export const STORAGE_STATUSES = ['unknown', 'ok', 'low', 'full'] as const;
export type StorageStatus = (typeof STORAGE_STATUSES)[number];

export interface StorageState {
  status: StorageStatus;
  /** Free bytes on the data directory's filesystem for the daemon (statfs bavail). */
  free_bytes: number | null;
  total_bytes: number | null;
  /** The warning threshold (NESTBOX_STORAGE_MIN_FREE_MB). */
  min_free_bytes: number;
  /** In words a person understands; null when all is well. */
  detail: string | null;
}

/** The station interface's lease (network layer on): null when the layer is off or without a lease. */
export interface NetworkLease {
  /** CIDR, e.g. "10.77.0.23/24". */
  address: string;
  gateway: string | null;
  dns: string[];
  /** The station interface's MAC (the coprocessor's station MAC). */
  mac: string | null;
  /** ISO time; null when the server gave no lease time. */
  lease_expires_at: string | null;
}

export interface DaemonState {
  version: string;
  started_at: string;
  uptime_s: number;
}

export interface DeviceStateData {
  connectivity: Connectivity;
  /** Why the last connection attempt failed, in words a person understands; null when none. */
  error: string | null;
  network: NetworkLease | null;
  wifi: WifiState;
  softap: SoftApState;
  coprocessor: CoprocessorState;
  scan: ScanState;
  instance: InstanceState;
  storage: StorageState;
  /** The box on the internet (name, steps, certificate); never a secret. */
  reachability: ReachabilityView;
  daemon: DaemonState;
}

/** Fields replaced as a whole (the rest are sections patched field by field). */
type WholeField = 'connectivity' | 'error' | 'network' | 'reachability';
const WHOLE_FIELDS: ReadonlySet<string> = new Set<WholeField>(['connectivity', 'error', 'network', 'reachability']);
type Section = Exclude<keyof DeviceStateData, WholeField>;
export type DeviceStatePatch = {
  connectivity?: Connectivity;
  error?: string | null;
  network?: NetworkLease | null;
  reachability?: ReachabilityView;
} & { [K in Section]?: Partial<DeviceStateData[K]> };

export interface DeviceStateChange {
  /** Dotted paths of every value that changed, e.g. "wifi.rssi". */
  paths: string[];
  previous: Readonly<DeviceStateData>;
  current: Readonly<DeviceStateData>;
}

export interface DeviceEvent {
  name: string;
  payload: Record<string, unknown>;
  at: string;
}

export function initialDeviceState(version: string, transport: string, now = new Date()): DeviceStateData {
  return {
    connectivity: 'starting',
    error: null,
    network: null,
    wifi: { mode: null, ssid: null, bssid: null, rssi: null, channel: null, mac: null },
    softap: { active: false, ssid: null, channel: null, stations: [], reason: null },
    coprocessor: {
      link: 'down',
      responding: false,
      transport,
      last_heartbeat: null,
      heartbeat_number: null,
      tx_power_dbm: null,
      power_save: null,
      firmware: null,
      firmware_version: null,
      chip: null,
      firmware_generation: null,
      ota: { phase: 'idle', bytes: 0, total: 0, percent: 0, error: null },
      firmware_file: null,
      resets: 0,
      last_reset: null,
      release: { status: 'off', driver: null, firmware: null, detail: null },
    },
    scan: { at: null, networks: [] },
    instance: { accounts: 0, statuses: 0, pending_follow_requests: 0, unread_notifications: 0 },
    storage: { status: 'unknown', free_bytes: null, total_bytes: null, min_free_bytes: 0, detail: null },
    reachability: initialView(),
    daemon: { version, started_at: now.toISOString(), uptime_s: 0 },
  };
}

/** The words /healthz, STATUS= and the owner API use for an instance without a box. */
export const NO_COPROCESSOR = 'no coprocessor (NESTBOX_COPROC=none)';

/** The state of an instance without a box: no coprocessor link, no connectivity manager, ever. */
export function withoutBox(state: DeviceStateData): DeviceStateData {
  return { ...state, connectivity: 'no_device', coprocessor: { ...state.coprocessor, link: 'off' } };
}

/** How many recent events DeviceState keeps for outputs that start after them. */
const RECENT_EVENTS = 20;

export class DeviceState extends EventEmitter<{ change: [DeviceStateChange]; event: [DeviceEvent] }> {
  private data: DeviceStateData;
  private readonly recent: DeviceEvent[] = [];

  constructor(initial: DeviceStateData) {
    super();
    this.data = deepFreeze(structuredClone(initial));
  }

  get(): Readonly<DeviceStateData> {
    return this.data;
  }

  /** Applies a patch; emits "change" only when some value really changed. Returns the paths. */
  update(patch: DeviceStatePatch): string[] {
    const previous = this.data;
    const next = structuredClone<DeviceStateData>(previous);
    const paths: string[] = [];
    for (const [key, value] of Object.entries(patch) as Array<[keyof DeviceStateData, unknown]>) {
      if (value === undefined) continue;
      if (WHOLE_FIELDS.has(key)) {
        if (!isDeepStrictEqual(next[key], value)) {
          paths.push(key);
          (next as unknown as Record<string, unknown>)[key] = structuredClone(value);
        }
        continue;
      }
      const section = next[key] as unknown as Record<string, unknown>;
      for (const [field, fieldValue] of Object.entries(value as Record<string, unknown>)) {
        if (fieldValue === undefined || isDeepStrictEqual(section[field], fieldValue)) continue;
        section[field] = structuredClone(fieldValue);
        paths.push(`${key}.${field}`);
      }
    }
    if (paths.length === 0) return paths;
    this.data = deepFreeze(next);
    this.emit('change', { paths, previous, current: this.data });
    return paths;
  }

  /** A discrete happening (disconnected, setup_ap_started, ota_progress, …) for the outputs. */
  publishEvent(name: string, payload: Record<string, unknown> = {}): void {
    const event = { name, payload, at: new Date().toISOString() };
    this.recent.push(event);
    if (this.recent.length > RECENT_EVENTS) this.recent.shift();
    this.emit('event', event);
  }

  /**
   * The latest events, oldest first: an output that starts later (MQTT starts after
   * connectivity) still reports what happened since boot, e.g. the first setup_ap_started.
   */
  recentEvents(): readonly DeviceEvent[] {
    return [...this.recent];
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/** One line for systemd STATUS= and the dashboard header. */
export function summarizeDeviceState(state: Readonly<DeviceStateData>): string {
  const { wifi, softap, coprocessor } = state;
  const parts: string[] = [];
  switch (state.connectivity) {
    case 'connected':
      parts.push(
        `online via ${wifi.ssid ?? '?'}${wifi.rssi != null ? ` (${wifi.rssi} dBm)` : ''}${state.network ? ` at ${state.network.address}` : ''}`,
      );
      break;
    case 'setup_ap':
      parts.push(`setup mode: join "${softap.ssid ?? '?'}" (${softap.stations.length} connected)`);
      break;
    case 'device_lost':
      parts.push('coprocessor not answering');
      break;
    case 'no_device':
      parts.push(NO_COPROCESSOR);
      break;
    default:
      parts.push(`${state.connectivity.replace('_', ' ')}${wifi.ssid ? ` to ${wifi.ssid}` : ''}`);
  }
  if (coprocessor.ota.phase === 'writing') parts.push(`firmware update ${coprocessor.ota.percent}%`);
  if (state.storage.status === 'full' || state.storage.status === 'low') parts.push(`storage ${state.storage.status}`);
  return parts.join(', ');
}
