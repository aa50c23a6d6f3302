/**
 * The connectivity state machine, pure: it takes inputs (link and device events, operation
 * results, clock ticks) stamped with the time, and answers with effects for the runner to carry
 * out. It never reads a clock, never waits and never talks to the device, so every rule is
 * testable with an injected clock. The public phase is derived from the facts it keeps (device,
 * station, soft AP), so it cannot disagree with them.
 *
 * Operation results carry the epoch of the effect that asked for them: after a device reset or
 * loss the epoch moves on and late answers from before are ignored.
 */
import type { Connectivity } from '../device/state.js';
import type { ConnectivityPolicy } from './policy.js';
import { reconnectDelay } from './policy.js';
import { deadlinesOf, portalInUse, type Deadlines } from './machine-deadlines.js';
import { describeDisconnectReason, type ConnectFailure } from './failures.js';
import type {
  DeviceFact,
  Effect,
  MachineInput,
  MachineSnapshot,
  SoftApFact,
  StationFact,
  StepResult,
  TimedInput,
} from './machine-io.js';

export type * from './machine-io.js';

export class ConnectivityMachine {
  private epoch = 0;
  private device: DeviceFact = 'unknown';
  private station: StationFact = 'down';
  private softAp: SoftApFact = 'off';
  private setupWanted = false;
  private phones = 0;
  private hasNetworks = false;
  private started = false;
  private attempt = 0;
  private failure: ConnectFailure | null = null;
  private wasConnected = false;
  /** A network a person submitted waits to be tried. */
  private userRequest = false;
  /** When the connect attempt in flight was asked, and how long the last failed one took. */
  private connectStartedAt: number | null = null;
  private lastFailedConnectMs: number | null = null;
  /** The attempt in flight is that person's. */
  private userAttempt = false;
  private disconnectedSince: number | null = null;
  private connectedSince: number | null = null;
  private lastHeartbeatAt: number | null = null;
  private probeAt: number | null = null;
  private connectAt: number | null = null;
  private stationsPollAt: number | null = null;
  private forcedUntil: number | null = null;
  private setupReason: string | null = null;
  private initPendingEpoch: number | null = null;
  private softApRetryAt: number | null = null;
  private wasReady = false;
  /** When the station associated and began waiting for a lease. */
  private associatedAt: number | null = null;
  /** The last request to the setup portal from the AP side. */
  private portalUsedAt: number | null = null;
  private effects: Effect[] = [];
  private cause = '';

  constructor(
    private readonly policy: ConnectivityPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  get phase(): Connectivity {
    if (this.device === 'lost') return 'device_lost';
    if (!this.started || this.device === 'unknown' || (this.device === 'initialising' && !this.wasReady))
      return 'starting';
    if (this.station === 'up') return 'connected';
    if (this.setupWanted || this.softAp === 'on' || this.softAp === 'starting') return 'setup_ap';
    return this.wasConnected ? 'reconnecting' : 'connecting';
  }

  snapshot(): MachineSnapshot {
    return {
      phase: this.phase,
      epoch: this.epoch,
      device: this.device,
      station: this.station,
      softAp: this.softAp,
      setupWanted: this.setupWanted,
      setupReason: this.setupReason,
      phones: this.phones,
      hasNetworks: this.hasNetworks,
      attempt: this.attempt,
      failure: this.failure,
      wasConnected: this.wasConnected,
      disconnectedSince: this.disconnectedSince,
      connectedSince: this.connectedSince,
      lastHeartbeatAt: this.lastHeartbeatAt,
      connectAt: this.connectAt,
      portalUsedAt: this.portalUsedAt,
      userRequest: this.userRequest,
      forcedUntil: this.forcedUntil,
      associatedAt: this.associatedAt,
    };
  }

  /** Feeds one input; returns what to do and the phase changes it caused (with their cause). */
  dispatch(input: TimedInput): StepResult {
    const before = this.phase;
    this.effects = [];
    this.cause = input.type;
    this.handle(input);
    this.checkTimers(input.at);
    this.reconcile(input.at);
    const after = this.phase;
    const transitions = before === after ? [] : [{ from: before, to: after, cause: this.cause, at: input.at }];
    return { effects: this.effects, transitions };
  }

  /** The earliest moment a tick may change something; null when only an input can. */
  nextDeadline(): number | null {
    const due = this.due();
    const candidates = [due.heartbeat, this.softAp === 'on' ? this.stationsPollAt : null];
    if (this.device === 'lost' && this.initPendingEpoch === null) candidates.push(this.probeAt);
    if (this.device === 'ready')
      candidates.push(due.connect, due.fallback, due.stable, this.forcedUntil, this.softApRetryAt, due.lease);
    const times = candidates.filter((t): t is number => t !== null);
    return times.length ? Math.min(...times) : null;
  }

  private handle(input: TimedInput): void {
    const now = input.at;
    switch (input.type) {
      case 'start':
        this.started = true;
        this.hasNetworks = input.hasNetworks;
        this.disconnectedSince = now;
        this.beginInit('start-up');
        return;
      case 'tick':
        this.cause = 'timer';
        return;
      case 'link':
        if (input.up) this.deviceAnswered('coprocessor link up');
        else this.loseDevice(now, `coprocessor link down${input.reason ? ` (${input.reason})` : ''}`);
        return;
      case 'devInit':
        this.deviceReset(now, 'the coprocessor restarted (devInit)');
        return;
      case 'restart':
        this.deviceReset(now, 'coprocessor restart asked');
        return;
      case 'heartbeat':
        this.lastHeartbeatAt = now;
        if (this.device === 'lost') this.deviceAnswered('heartbeat from a lost device');
        return;
      case 'stationDisconnected':
        this.stationDropped(now, input.reason);
        return;
      case 'softApStations':
        this.phones = input.count;
        this.cause = `${input.count} phone(s) on the setup AP`;
        return;
      case 'softApStationLeft':
        if (this.softAp === 'on') this.stationsPollAt = now;
        return;
      case 'initResult':
        if (input.epoch === this.initPendingEpoch) this.initPendingEpoch = null;
        if (input.epoch === this.epoch) this.initFinished(now, input);
        return;
      case 'connectResult':
        if (input.epoch === this.epoch) this.connectFinished(now, input);
        return;
      case 'softApResult':
        if (input.epoch === this.epoch) this.softApFinished(now, input);
        return;
      case 'networksChanged':
        this.hasNetworks = input.hasNetworks;
        if (input.tryNow) {
          this.userRequest = true;
          this.failure = null;
          this.cause = 'new network submitted';
          if (this.station !== 'connecting') this.connectAt = now;
        } else if (input.hasNetworks && this.connectAt === null && this.station === 'down') {
          this.connectAt = now;
        }
        return;
      case 'enterSetupMode':
        this.wantSetup('setup mode asked by the owner');
        this.forcedUntil = now + this.policy.forcedSetupHoldMs;
        return;
      case 'lease':
        if (input.up) this.leaseGained(now);
        else this.leaseLost(now, input.reason);
        return;
      case 'portalUsed':
        this.portalUsedAt = now;
        return;
    }
  }

  // ── device ──────────────────────────────────────────────────────────────────────────────────

  private beginInit(cause: string): void {
    this.device = 'initialising';
    this.probeAt = null;
    this.cause = cause;
    this.requestInit();
  }

  private requestInit(): void {
    this.initPendingEpoch = this.epoch;
    this.effects.push({ type: 'initDevice', epoch: this.epoch });
  }

  private deviceAnswered(cause: string): void {
    if (this.device === 'lost') {
      this.epoch += 1;
      this.beginInit(cause);
    }
  }

  private deviceReset(now: number, cause: string): void {
    const known = this.device === 'ready' || this.device === 'lost' || this.wasReady;
    if (known) this.effects.push({ type: 'publish', event: 'coprocessor_reset', payload: { was: this.phase } });
    // The device rebooted: its station and soft AP are down, heartbeats are off.
    this.epoch += 1;
    if (this.station === 'up') this.markDisconnected(now);
    this.station = 'down';
    if (this.softAp !== 'off') this.softAp = 'off';
    this.lastHeartbeatAt = null;
    if (this.started) this.beginInit(cause);
  }

  private loseDevice(now: number, cause: string): void {
    if (this.device === 'lost' || !this.started) return;
    this.epoch += 1;
    this.device = 'lost';
    this.cause = cause;
    if (this.station === 'up') this.markDisconnected(now);
    this.station = 'down';
    this.connectAt = null;
    this.stationsPollAt = null;
    this.probeAt = now;
  }

  private initFinished(now: number, result: Extract<MachineInput, { type: 'initResult' }>): void {
    if (!result.ok) {
      this.epoch += 1;
      this.device = 'lost';
      this.cause = `the coprocessor does not answer${result.error ? ` (${result.error})` : ''}`;
      this.probeAt = now + this.policy.deviceProbeMs;
      return;
    }
    this.device = 'ready';
    this.wasReady = true;
    this.cause = 'coprocessor initialised';
    this.lastHeartbeatAt = now;
    this.softAp = result.softApUp ? 'on' : 'off';
    if (this.softAp === 'on') this.stationsPollAt = now;
    if (result.stationUp && this.policy.leaseRequired) {
      this.associate(now);
      this.connectAt = null;
    } else if (result.stationUp) {
      this.station = 'up';
      this.connectedSince ??= now;
      this.disconnectedSince = null;
      this.connectAt = null;
    } else {
      this.station = 'down';
      this.connectAt = now;
    }
    if (!this.hasNetworks && !result.stationUp) this.wantSetup('no saved network');
  }

  // ── station ─────────────────────────────────────────────────────────────────────────────────

  private stationDropped(now: number, reason: number): void {
    // Bursts: only the first event of a drop counts; the rest fall inside the debounce window.
    if (this.station !== 'up' && this.station !== 'associated') return;
    this.cause = `station disconnected: ${describeDisconnectReason(reason)}`;
    this.dropStation(now, { reason, reason_text: describeDisconnectReason(reason) });
  }

  /** The station is gone (disconnect event or lost lease): reconnect after the debounce window. */
  private dropStation(now: number, payload: Record<string, unknown>): void {
    const wasUp = this.station === 'up';
    this.station = 'down';
    this.associatedAt = null;
    if (wasUp) this.markDisconnected(now);
    this.attempt = 0;
    this.connectAt = now + reconnectDelay(this.policy, 1, this.random);
    if (wasUp) this.effects.push({ type: 'publish', event: 'disconnected', payload });
  }

  /** Joined (network layer on): online only once the lease comes. */
  private associate(now: number): void {
    this.station = 'associated';
    this.associatedAt = now;
    this.cause = 'associated; waiting for an address (DHCP)';
  }

  private leaseGained(now: number): void {
    if (this.station !== 'associated') return;
    this.station = 'up';
    this.associatedAt = null;
    this.cause = 'address leased';
    this.connectedSince = now;
    this.disconnectedSince = null;
  }

  /** A lease that is not renewed is a disconnect: the association goes too, and is tried again. */
  private leaseLost(now: number, reason?: string): void {
    if (this.station !== 'up') return;
    const text = `lost its address${reason ? ` (${reason})` : ''}`;
    this.cause = `station ${text}`;
    this.dropStation(now, { reason: null, reason_text: text });
    this.effects.push({ type: 'disconnect', epoch: this.epoch });
  }

  /** Associated for the lease timeout without an address: not online; drop and try again. */
  private leaseTimedOut(now: number): void {
    this.station = 'down';
    this.associatedAt = null;
    this.attempt += 1;
    this.failure = 'no_address';
    this.cause = `no address within ${this.policy.leaseTimeoutMs / 1000} s of joining`;
    this.effects.push({ type: 'disconnect', epoch: this.epoch });
    this.connectAt =
      now + (this.setupWanted ? this.policy.setupRetryMs : reconnectDelay(this.policy, this.attempt + 1, this.random));
  }

  private markDisconnected(now: number): void {
    this.wasConnected = true;
    this.connectedSince = null;
    this.disconnectedSince = now;
  }

  private connectFinished(now: number, result: Extract<MachineInput, { type: 'connectResult' }>): void {
    if (result.ok) {
      if (this.policy.leaseRequired) {
        this.associate(now);
      } else {
        this.station = 'up';
        this.cause = 'connected';
        this.connectedSince = now;
        this.disconnectedSince = null;
      }
      this.attempt = 0;
      this.failure = null;
      this.connectAt = this.userRequest ? now : null;
      if (this.userAttempt) this.forcedUntil = null;
      this.userAttempt = false;
      return;
    }
    this.station = 'down';
    this.attempt += 1;
    if (this.connectStartedAt !== null) this.lastFailedConnectMs = now - this.connectStartedAt;
    // A failure of an attempt that started before the person's submission is not their answer.
    const stale = this.userRequest;
    if (!stale) this.failure = result.failure ?? 'failed';
    this.cause = `connect failed: ${result.failure ?? 'failed'}`;
    this.userAttempt = false;
    if (stale) {
      this.connectAt = now;
      return;
    }
    if (result.networksLeft === false) {
      this.hasNetworks = false;
      this.connectAt = null;
      this.wantSetup(this.failure === 'auth' ? 'every saved password was refused' : 'no saved network left to try');
      return;
    }
    const delay = this.setupWanted
      ? this.policy.setupRetryMs
      : reconnectDelay(this.policy, this.attempt + 1, this.random);
    this.connectAt = now + delay;
  }

  // ── soft AP ─────────────────────────────────────────────────────────────────────────────────

  private softApFinished(now: number, result: Extract<MachineInput, { type: 'softApResult' }>): void {
    if (result.started) {
      if (result.ok) {
        this.softAp = 'on';
        this.stationsPollAt = now + this.policy.stationPollMs;
        this.effects.push({ type: 'publish', event: 'setup_ap_started', payload: {} });
      } else {
        // Try again at the next setup retry; the machine stays in setup_ap meanwhile.
        this.softAp = 'off';
        this.cause = `setup AP did not start${result.error ? ` (${result.error})` : ''}`;
        this.softApRetryAt = now + this.policy.setupRetryMs;
      }
      return;
    }
    if (result.ok) {
      this.softAp = 'off';
      this.phones = 0;
      this.stationsPollAt = null;
      this.effects.push({ type: 'publish', event: 'setup_ap_stopped', payload: {} });
    } else {
      this.softAp = 'on';
      this.setupWanted = true;
    }
  }

  /** Setup mode is wanted; the first reason stays visible (status API, dashboard) until it ends. */
  private wantSetup(reason: string): void {
    if (!this.setupWanted) this.setupReason = reason;
    this.setupWanted = true;
    this.cause = reason;
  }

  // ── timers and reconciliation ───────────────────────────────────────────────────────────────

  private due(): Deadlines {
    return deadlinesOf(this.snapshot(), this.policy);
  }

  private checkTimers(now: number): void {
    const heartbeat = this.due().heartbeat;
    if (heartbeat !== null && now >= heartbeat) {
      this.loseDevice(
        now,
        `no heartbeat for ${Math.round(this.policy.heartbeatExpectedMs * this.policy.heartbeatMisses)} ms`,
      );
    }
    if (this.device === 'lost' && this.probeAt !== null && now >= this.probeAt && this.initPendingEpoch === null) {
      this.requestInit();
      this.probeAt = now + this.policy.deviceProbeMs;
    }
    if (this.device !== 'ready') return;
    const lease = this.due().lease;
    if (lease !== null && now >= lease) this.leaseTimedOut(now);
    const fallback = this.due().fallback;
    if (fallback !== null && now >= fallback)
      this.wantSetup(`no connection for ${this.policy.fallbackAfterMs / 1000} s (grace period over)`);
    if (this.forcedUntil !== null && now >= this.forcedUntil) this.forcedUntil = null;
    const stable = this.due().stable;
    if (stable !== null && now >= stable) {
      this.setupWanted = false;
      this.setupReason = null;
      this.cause =
        this.phones > 0
          ? 'connection stable; nobody is using the setup portal'
          : `connection stable for ${this.policy.stableMs} ms`;
    }
    if (this.stationsPollAt !== null && now >= this.stationsPollAt && this.softAp === 'on') {
      this.effects.push({ type: 'pollStations', epoch: this.epoch });
      this.stationsPollAt = now + this.policy.stationPollMs;
    }
  }

  private reconcile(now: number): void {
    if (this.device !== 'ready') return;
    if (this.setupWanted && this.softAp === 'off' && (this.softApRetryAt === null || now >= this.softApRetryAt)) {
      this.softAp = 'starting';
      this.softApRetryAt = null;
      this.effects.push({ type: 'startSoftAp', epoch: this.epoch });
    } else if (!this.setupWanted && this.softAp === 'on') {
      this.softAp = 'stopping';
      this.effects.push({ type: 'stopSoftAp', epoch: this.epoch });
    }
    const connectAt = this.due().connect;
    if (connectAt !== null && now >= connectAt) {
      // A person using the setup portal: automatic retries would move the radio's channel under
      // their phone, so they wait; what the person submits is tried at once. A box that was online
      // is never held: its own network coming back is what everyone is waiting for.
      if (
        this.softAp === 'on' &&
        portalInUse(this.snapshot(), this.policy, now) &&
        !this.userRequest &&
        !this.wasConnected
      ) {
        this.connectAt = now + this.policy.setupRetryMs;
        return;
      }
      // The device does one thing at a time and a failing ConnectAP holds it for seconds: an
      // automatic attempt that would still run when the grace period ends waits for the setup AP.
      const fallback = this.due().fallback;
      if (
        !this.userRequest &&
        fallback !== null &&
        this.lastFailedConnectMs !== null &&
        now < fallback &&
        now + this.lastFailedConnectMs > fallback
      ) {
        this.connectAt = fallback;
        return;
      }
      if (this.station === 'up') this.markDisconnected(now);
      this.associatedAt = null;
      this.station = 'connecting';
      this.connectStartedAt = now;
      this.connectAt = null;
      this.userAttempt = this.userRequest;
      this.userRequest = false;
      this.effects.push({ type: 'connect', epoch: this.epoch, attempt: this.attempt + 1 });
    }
  }
}
