/**
 * The `<base>/state` message: the whole DeviceState as JSON, with nothing secret in it. Values
 * that change all the time are refreshed on a schedule instead of causing a publish themselves.
 */
import { compareFirmwareVersions } from '../coproc/firmware-version.js';
import type { DeviceStateData } from '../device/state.js';
import { isSecretKey } from '../log/redact.js';

/**
 * Paths whose change alone never triggers a publish: the heartbeat counters tick every few
 * seconds, uptime every second, the signal strength wobbles by a dBm on every report, and free
 * space moves with every write (its status changing is what publishes).
 * ESPHome polls its Wi-Fi signal sensor once a minute for the same reason.
 */
export const VOLATILE_PATHS: ReadonlySet<string> = new Set([
  'coprocessor.heartbeat_number',
  'coprocessor.last_heartbeat',
  'daemon.uptime_s',
  'storage.free_bytes',
  'storage.detail',
  'wifi.rssi',
]);

export function onlyVolatile(paths: readonly string[]): boolean {
  return paths.every((path) => VOLATILE_PATHS.has(path));
}

export interface StatePayloadOptions {
  now?: Date;
  /** Set only when the owner turned on publishing the setup passphrase. */
  setupPassphrase?: string | null;
}

export function statePayload(state: Readonly<DeviceStateData>, options: StatePayloadOptions = {}): string {
  const now = options.now ?? new Date();
  const data = withoutSecrets(state) as DeviceStateData;
  // Uptime is derived at publish time, so every message carries a fresh value without anyone
  // having to write it into DeviceState every second.
  const started = Date.parse(state.daemon.started_at);
  if (Number.isFinite(started)) data.daemon.uptime_s = Math.max(0, Math.floor((now.getTime() - started) / 1000));
  const file = data.coprocessor.firmware_file;
  if (file) (file as FirmwareFileWithOffer).newer = fileIsNewer(file.version, state.coprocessor.firmware_version);
  if (options.setupPassphrase)
    data.softap = { ...data.softap, setup_passphrase: options.setupPassphrase } as DeviceStateData['softap'];
  return JSON.stringify(data);
}

type FirmwareFileWithOffer = NonNullable<DeviceStateData['coprocessor']['firmware_file']> & { newer: boolean | null };

/**
 * Whether the owner's firmware file is a newer release than the installed one (null: the versions
 * cannot be placed, or nothing is installed that names a version). Home Assistant offers an update
 * whenever the two version texts differ and it cannot order them itself, and the device and the
 * image write the same release differently (`FG-1.0.0.0.0`, `1.0.0`).
 */
function fileIsNewer(file: string, installed: string | null): boolean | null {
  const order = installed ? compareFirmwareVersions(file, installed) : null;
  return order === null ? null : order > 0;
}

/** A copy without any field whose name says it holds a secret, however deep. */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (!isSecretKey(key)) out[key] = withoutSecrets(item);
    return out;
  }
  return value;
}
