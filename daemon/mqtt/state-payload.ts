/**
 * The `<base>/state` message: the whole DeviceState as JSON, with nothing secret in it. Values
 * that change all the time are refreshed on a schedule instead of causing a publish themselves.
 */
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
  if (options.setupPassphrase)
    data.softap = { ...data.softap, setup_passphrase: options.setupPassphrase } as DeviceStateData['softap'];
  return JSON.stringify(data);
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
