/**
 * The station's operations as the runner carries them out for the machine: a connect attempt (the
 * network chosen, joined the way the firmware model says, the failure told apart), dropping the
 * association, and stopping the station. Every choice comes from the firmware model; this module
 * only talks to the device and the saved networks, tells the connectivity record where the station
 * is, and reports the outcome to the machine through `report`.
 */
import type { ConnectRequest, CoprocClientApi, WifiModeName } from '../coproc/api.js';
import { CoprocError } from '../coproc/api.js';
import type { Logger } from '../log/logger.js';
import type { ConnectivityClock } from './clock.js';
import { watchConnectOutcome, type ConnectOutcome } from './connect-outcome.js';
import type { ConnectivityRecord } from './connectivity-record.js';
import { describeDeviceError, logDeviceFailure, type EpochCurrent } from './device-operations.js';
import type { ConnectFailure } from './failures.js';
import type { FailureEvidence, FirmwareInput, FirmwareModel } from './firmware-model.js';
import type { MachineInput } from './machine.js';
import { ssidText } from './network-input.js';
import type { NetworksRepo, SavedNetwork } from './networks-repo.js';
import type { ConnectivityPolicy } from './policy.js';
import type { RecentScan } from './recent-scan.js';

export interface StationOperationsOptions {
  client: CoprocClientApi;
  record: ConnectivityRecord;
  networks: NetworksRepo;
  scan: RecentScan;
  policy: ConnectivityPolicy;
  firmware: FirmwareModel;
  clock: ConnectivityClock;
  log: Logger;
  /** The machine's input for an operation's outcome. */
  report: (input: MachineInput) => void;
  isCurrent: EpochCurrent;
}

/** The current firmware's events said no: why, and the disconnect reason that said it. */
class ConnectRefused extends Error {
  constructor(
    readonly failure: ConnectFailure,
    readonly reason: number | null,
  ) {
    super(reason === null ? `no outcome (${failure})` : `refused with reason ${reason} (${failure})`);
    this.name = 'ConnectRefused';
  }
}

const CONNECT_FAILURE = { failed: 'connect failed', cutShort: 'connect cut short' };

export class StationOperations {
  constructor(private readonly options: StationOperationsOptions) {}

  private observe(input: FirmwareInput): void {
    this.options.firmware.observe({ ...input, at: this.options.clock.now() });
  }

  async connect(epoch: number, attempt: number): Promise<void> {
    const { networks, record, policy, firmware, report } = this.options;
    const candidates = await networks.candidates();
    if (candidates.length === 0) {
      report({ type: 'connectResult', epoch, ok: false, failure: 'no_network', networksLeft: false });
      return;
    }
    const network = firmware.chooseNetwork(candidates, attempt);
    const name = ssidText(network.ssid);
    const startedAt = this.options.clock.now();
    this.options.log.info('connecting', { ssid: name, attempt, hidden: network.hidden });
    const refused = await this.join(network).then(
      () => null,
      async (error: unknown) => ({ error, failure: await this.classifyFailure(error, network, startedAt) }),
    );
    if (refused === null) {
      const station = await this.options.client.getApConfig().catch(() => null);
      await networks.recordSuccess(network.id);
      this.observe({ type: 'joined', network });
      record.joined({
        ssid: station?.ssid ?? name,
        bssid: station?.bssid ?? null,
        rssi: station?.rssi ?? null,
        channel: station?.channel ?? null,
      });
      report({ type: 'connectResult', epoch, ok: true });
      return;
    }
    const { failure, error } = refused;
    this.observe({ type: 'joinFailed' });
    let flagged = false;
    if (failure === 'auth') flagged = await networks.recordAuthFailure(network.id, policy.authFailureLimit);
    const networksLeft = (await networks.candidates()).length > 0;
    logDeviceFailure(this.options.log, this.options.isCurrent(epoch), CONNECT_FAILURE, {
      ssid: name,
      attempt,
      failure,
      refused_key_flagged: flagged,
      error: describeDeviceError(error),
    });
    record.stationGone();
    report({ type: 'connectResult', epoch, ok: false, failure, networksLeft });
  }

  /** Drops the association; "not connected" (−1) means it is gone already. */
  async disconnect(): Promise<void> {
    if (this.options.firmware.connectsByEvents) await this.stopStation();
    else
      await this.options.client
        .disconnectAp()
        .catch((error) => this.options.log.debug('station disconnect', { error: describeDeviceError(error) }));
    this.options.record.stationGone();
  }

  /** Takes the radio down before a restart: the station, then the soft AP. */
  async takeDown(): Promise<void> {
    const { client, firmware } = this.options;
    if (firmware.connectsByEvents) await this.stopStation();
    else await client.disconnectAp().catch(() => undefined);
    await client.stopSoftAp().catch(() => undefined);
  }

  /**
   * The current firmware retries after every disconnect, also one the host asked for; only a mode
   * without the station stops it (the soft AP stays). Returns the mode now set.
   */
  async stopStation(mode?: WifiModeName): Promise<WifiModeName> {
    const { client, record, firmware } = this.options;
    this.observe({ type: 'stationStopped' });
    try {
      const now = mode ?? (await client.getMode());
      const next = firmware.stationlessMode(now);
      if (next === null) return now;
      await client.setMode(next);
      record.mode(next);
      return next;
    } catch (error) {
      this.options.log.debug('station not stopped', { error: describeDeviceError(error) });
      return mode ?? 'none';
    }
  }

  /** Joins `network`: resolves once joined, rejects with why not. */
  private async join(network: SavedNetwork): Promise<void> {
    const seen = this.options.scan.find(network.ssid);
    const request = {
      ssid: network.ssid,
      password: network.passphrase,
      wpa3Supported: Boolean(seen?.security.includes('wpa3')),
    };
    if (!this.options.firmware.connectsByEvents) {
      await this.options.client.connectAp(request);
      return;
    }
    const outcome = await this.joinByEvents(network, request);
    if (!outcome.ok) {
      await this.stopStation();
      throw new ConnectRefused(outcome.failure, outcome.reason);
    }
  }

  /**
   * The current firmware: ConnectAP only hands over the configuration; the outcome is the events
   * about this network (connect-outcome.ts).
   */
  private async joinByEvents(network: SavedNetwork, request: ConnectRequest): Promise<ConnectOutcome> {
    const { client, policy, firmware, clock } = this.options;
    const watch = {
      ssid: network.ssid,
      timeoutMs: policy.connectOutcomeMs,
      refusalsNeeded: firmware.refusalsNeeded(network),
    };
    // The firmware's own retry is under way: listen before asking where it is, so an event that
    // comes meanwhile is not missed.
    const retry = firmware.retries(network) ? watchConnectOutcome(client, watch, clock) : null;
    const joined = await client.getApConfig().catch((error: unknown) => {
      retry?.cancel();
      throw error;
    });
    const plan = firmware.joinPlan(network, joined?.ssidBytes ?? null, retry !== null);
    if (plan.kind === 'joined') {
      retry?.cancel();
      return { ok: true };
    }
    if (plan.kind === 'ownRetry' && retry) return retry.outcome;
    await client.connectAp(request);
    // Listening starts after the answer: what the firmware sent before it is about what it held.
    const pending = watchConnectOutcome(client, watch, clock);
    this.observe({ type: 'configHandedOver', network });
    if (plan.kind === 'handOver' && plan.disconnectAfter) await client.disconnectAp().catch(() => undefined);
    return pending.outcome;
  }

  private async classifyFailure(error: unknown, network: SavedNetwork, startedAt: number): Promise<ConnectFailure> {
    const { firmware, scan } = this.options;
    if (error instanceof ConnectRefused) return firmware.failureOf({ kind: 'refused', failure: error.failure });
    if (error instanceof CoprocError && error.kind !== 'device') return firmware.failureOf({ kind: 'link' });
    // The device says only "failed": a fresh scan tells a missing network from a refused password.
    await scan.refresh();
    const seen = scan.find(network.ssid);
    const evidence: FailureEvidence = {
      kind: 'device',
      seen: seen ? { secured: seen.security !== 'open' } : null,
      hidden: network.hidden,
      startedAt,
    };
    return firmware.failureOf(evidence);
  }
}
