/**
 * How the bridge talks to the broker with the `mqtt` library: client options from the config
 * (mqtt://, mqtts:// with CA/cert/key files, ws://, wss://; login; protocol 3.1.1 or 5; the Last
 * Will), the reconnect backoff, and broker errors in words a person understands.
 */
import { readFileSync } from 'node:fs';
import type { IClientOptions } from 'mqtt';
import type { MqttProtocol } from '../config.js';

export interface BrokerSettings {
  url: string;
  username: string | null;
  password: string | null;
  protocolVersion: MqttProtocol;
  /** Overrides `nestbox-<device id>`. */
  clientId: string | null;
  caFile: string | null;
  certFile: string | null;
  keyFile: string | null;
}

export interface Will {
  topic: string;
  payload: string;
}

export class BrokerSettingsError extends Error {}

export function clientIdFor(settings: BrokerSettings, deviceId: string): string {
  return settings.clientId ?? `nestbox-${deviceId}`;
}

/** Reads the TLS files now, so a missing file is one clear error instead of a failed handshake. */
export function clientOptions(
  settings: BrokerSettings,
  deviceId: string,
  will: Will,
  timing: { reconnectMs: number; connectTimeoutMs: number },
): IClientOptions {
  const options: IClientOptions = {
    clientId: clientIdFor(settings, deviceId),
    protocolVersion: settings.protocolVersion,
    clean: true,
    keepalive: 30,
    reconnectPeriod: timing.reconnectMs,
    connectTimeout: timing.connectTimeoutMs,
    // A refused login is retried like any other failure (the owner may fix the broker's side).
    reconnectOnConnackError: true,
    // We subscribe again ourselves on every connect.
    resubscribe: false,
    // While disconnected nothing is queued: state is republished on connect, events are queued by the bridge.
    queueQoSZero: false,
    will: { topic: will.topic, payload: Buffer.from(will.payload), qos: 1, retain: true },
  };
  if (settings.username !== null) options.username = settings.username;
  if (settings.password !== null) options.password = settings.password;
  if (settings.caFile) options.ca = readPem('mqtt_ca_file', settings.caFile);
  if (settings.certFile) options.cert = readPem('mqtt_cert_file', settings.certFile);
  if (settings.keyFile) options.key = readPem('mqtt_key_file', settings.keyFile);
  return options;
}

function readPem(key: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new BrokerSettingsError(
      `cannot read ${key} ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
    );
  }
}

/** Reconnect delays: doubling from `minMs`, never above `maxMs` (the MQTT contract promises ≤ 5 s). */
export class Backoff {
  private current: number;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {
    this.current = minMs;
  }

  /** The delay before the next attempt; each call doubles the one after it. */
  next(): number {
    const delay = this.current;
    this.current = Math.min(this.maxMs, this.current * 2);
    return delay;
  }

  reset(): number {
    this.current = this.minMs;
    return this.next();
  }
}

/** CONNACK codes that mean "wrong login" (3.1.1: 4, 5; MQTT 5: 0x86, 0x87, 0x8c). */
const LOGIN_REFUSED = new Set([4, 5, 0x86, 0x87, 0x8c]);

/** One line for /healthz and systemd STATUS=; never the password or the URL's login. */
export function describeBrokerError(error: unknown): string {
  const err = error as { code?: unknown; message?: string; address?: string; port?: number; hostname?: string };
  const code = err?.code;
  if (typeof code === 'number') {
    const reason = (err.message ?? '').replace(/^Connection refused:\s*/i, '');
    if (LOGIN_REFUSED.has(code)) return `the broker refused the login (${reason || `code ${code}`})`;
    return `the broker refused the connection (${reason || `code ${code}`})`;
  }
  switch (code) {
    case 'ECONNREFUSED':
      return `broker unreachable: connection refused${err.address ? ` at ${err.address}:${err.port}` : ''}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `broker host not found${err.hostname ? ` (${err.hostname})` : ''}`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `broker unreachable (${code})`;
    case 'ECONNRESET':
      return 'the broker closed the connection';
  }
  if (err?.message === 'connack timeout') return 'the broker did not answer the connection request in time';
  if (
    (typeof code === 'string' && code.startsWith('ERR_TLS')) ||
    /certificate|self.signed|SSL/i.test(err?.message ?? '')
  ) {
    return `TLS handshake with the broker failed (${err.message})`;
  }
  return err?.message ? `MQTT error: ${err.message}` : 'MQTT error';
}
