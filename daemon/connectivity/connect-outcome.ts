/**
 * The outcome of a connect on the current firmware, read from its events: ConnectAP is answered at
 * once and only hands the firmware a configuration, which it applies at its next connected or
 * disconnected event — so the events that follow may still be about the previous network. An event
 * counts only when it names the network asked for (by SSID bytes): Event_StationConnectedToAP is
 * success; a disconnect whose reason says the network is missing ends the attempt at once; one whose
 * reason says the password was refused ends it once it cannot be the previous configuration's try
 * (see `refusalsNeeded`). Other reasons (leaving, association failures) are the firmware retrying:
 * the attempt waits for a conclusive event or its deadline.
 */
import type { CoprocClientApi } from '../coproc/api.js';
import { failureOfDisconnect, type ConnectFailure } from './failures.js';
import { sameSsid } from './network-input.js';

export type ConnectOutcome =
  | { ok: true }
  /** `reason` is the last disconnect reason seen for the network (null: no event named it). */
  | { ok: false; failure: ConnectFailure; reason: number | null };

export interface OutcomeWatch {
  ssid: Uint8Array;
  timeoutMs: number;
  /** Refusals of this network to see before the password counts as refused (1 or 2). */
  refusalsNeeded: number;
}

export interface OutcomeTimer {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface PendingOutcome {
  outcome: Promise<ConnectOutcome>;
  /** Stops listening; the outcome settles as a timeout if nothing came yet. */
  cancel(): void;
}

/** Starts listening before the request is sent, so an event that overtakes its answer still counts. */
export function watchConnectOutcome(client: CoprocClientApi, watch: OutcomeWatch, timer: OutcomeTimer): PendingOutcome {
  let settle: (outcome: ConnectOutcome) => void = () => undefined;
  const outcome = new Promise<ConnectOutcome>((resolve) => (settle = resolve));
  let refusals = 0;
  let lastReason: number | null = null;
  const finish = (result: ConnectOutcome) => {
    client.off('stationConnected', onConnected);
    client.off('stationDisconnected', onDisconnected);
    timer.clearTimeout(handle);
    settle(result);
  };
  const onConnected = ({ ssidBytes }: { ssidBytes: Uint8Array }) => {
    if (sameSsid(ssidBytes, watch.ssid)) finish({ ok: true });
  };
  const onDisconnected = ({ reason, ssidBytes }: { reason: number; ssidBytes?: Uint8Array | null }) => {
    if (!ssidBytes || !sameSsid(ssidBytes, watch.ssid)) return;
    lastReason = reason;
    const failure = failureOfDisconnect(reason);
    if (failure === 'not_found') return finish({ ok: false, failure, reason });
    if (failure === 'auth' && ++refusals >= watch.refusalsNeeded) finish({ ok: false, failure, reason });
  };
  const timedOut = () =>
    finish({
      ok: false,
      failure: lastReason === null ? 'timeout' : failureOfDisconnect(lastReason),
      reason: lastReason,
    });
  client.on('stationConnected', onConnected);
  client.on('stationDisconnected', onDisconnected);
  const handle = timer.setTimeout(timedOut, watch.timeoutMs);
  return { outcome, cancel: timedOut };
}
