/**
 * The timers of the connectivity policy, in milliseconds, derived once from the config.
 * Kept apart from the state machine so tests and the benchmark can state them directly.
 */
import type { Config } from '../config.js';

export interface ConnectivityPolicy {
  /** Heartbeat period asked of the coprocessor, in seconds (the device clamps it to 10–3600). */
  heartbeatPeriodS: number;
  /** The period heartbeats really arrive at, in real milliseconds (clamped, then time-scaled). */
  heartbeatExpectedMs: number;
  heartbeatMisses: number;
  /** First reconnect after a disconnect; disconnect events inside this window are one burst. */
  reconnectDelayMs: number;
  reconnectMaxMs: number;
  /** ± fraction applied to every reconnect delay after the first (spreads boxes of one household). */
  jitter: number;
  fallbackAfterMs: number;
  setupRetryMs: number;
  stableMs: number;
  /** Refusals of one password before the network is flagged and no longer retried. */
  authFailureLimit: number;
  /** How often the soft AP's station list is read while the AP is up. */
  stationPollMs: number;
  /** How often a lost device is asked again. */
  deviceProbeMs: number;
  /** Setup mode asked by the owner holds the AP at least this long. */
  forcedSetupHoldMs: number;
  /**
   * Network layer on: association is not being online; the station counts as up only once it
   * has a lease (address and default route).
   */
  leaseRequired: boolean;
  /** Associated this long without a lease: the association is dropped and retried (with backoff). */
  leaseTimeoutMs: number;
  /** The setup portal counts as in use this long after its last request from the AP side. */
  portalIdleMs: number;
  /** Current firmware: how long a connect waits for an event that decides it (time-scaled). */
  connectOutcomeMs: number;
  /** NESTBOX_WIFI_COUNTRY, applied at every initialisation by firmware that supports it; null keeps the firmware's. */
  wifiCountry?: string | null;
}

export const HEARTBEAT_MIN_S = 10;
/** As long as the documented firmware's ConnectAP may take to answer. */
const CONNECT_OUTCOME_MS = 60_000;
export const HEARTBEAT_MAX_S = 3600;

/** The period the device will actually use: it clamps out-of-range values instead of refusing them. */
export function deviceHeartbeatPeriodS(askedS: number): number {
  return Math.min(HEARTBEAT_MAX_S, Math.max(HEARTBEAT_MIN_S, Math.round(askedS)));
}

export function policyFromConfig(config: Config): ConnectivityPolicy {
  const heartbeatExpectedMs = (deviceHeartbeatPeriodS(config.heartbeatS) * 1000) / config.coprocTimeScale;
  return {
    heartbeatPeriodS: config.heartbeatS,
    heartbeatExpectedMs,
    heartbeatMisses: config.heartbeatMisses,
    reconnectDelayMs: config.reconnectDelayMs,
    reconnectMaxMs: config.reconnectMaxS * 1000,
    jitter: 0.2,
    fallbackAfterMs: config.fallbackAfterS * 1000,
    setupRetryMs: config.setupRetryS * 1000,
    stableMs: config.stableS * 1000,
    authFailureLimit: 3,
    stationPollMs: Math.min(5000, Math.max(250, heartbeatExpectedMs / 2)),
    deviceProbeMs: Math.min(heartbeatExpectedMs, 10_000),
    forcedSetupHoldMs: 10 * 60_000,
    leaseRequired: config.network === 'on',
    leaseTimeoutMs: 30_000,
    portalIdleMs: 2 * 60_000,
    connectOutcomeMs: CONNECT_OUTCOME_MS / config.coprocTimeScale,
    wifiCountry: config.wifiCountry,
  };
}

/**
 * Delay before reconnect attempt `attempt` (1 = the first after a disconnect): the first is exactly
 * reconnectDelayMs (the debounce window); later ones double up to reconnectMaxMs, with jitter.
 */
export function reconnectDelay(policy: ConnectivityPolicy, attempt: number, random: () => number): number {
  if (attempt <= 1) return policy.reconnectDelayMs;
  const base = Math.min(policy.reconnectMaxMs, policy.reconnectDelayMs * 2 ** (attempt - 1));
  const spread = 1 - policy.jitter + 2 * policy.jitter * random();
  return Math.round(Math.min(policy.reconnectMaxMs, base * spread));
}
