/**
 * The machine runner: the one place where the pure state machine meets the world. It feeds the
 * coprocessor's events, the network layer's lease and the results of its own operations into the
 * machine, carries out the effects the machine asks for (one at a time, in order, in the shared
 * line of device operations), keeps the timer for the machine's next deadline, and tells the
 * connectivity record the machine's phase. The setup portal and the device commands reach the
 * machine only through its public inputs below.
 */
import type { BootAnnouncement, CoprocClientApi } from '../coproc/api.js';
import type { DeviceState, DeviceStateData } from '../device/state.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import type { ChipInterfaces } from './chip-interfaces.js';
import { realClock, type ConnectivityClock } from './clock.js';
import type { ConnectivityRecord } from './connectivity-record.js';
import type { CoprocessorRecord } from './coprocessor-record.js';
import { initialiseDevice, type DeviceInitOptions } from './device-init.js';
import type { DeviceOperations } from './device-operations.js';
import { describeFailure, type ConnectFailure } from './failures.js';
import { FirmwareModel, type FirmwareGeneration, type FirmwareInput } from './firmware-model.js';
import { ConnectivityMachine, type Effect, type MachineInput, type Transition } from './machine.js';
import { ssidText } from './network-input.js';
import type { NetworksRepo, SavedNetwork } from './networks-repo.js';
import type { ConnectivityPolicy } from './policy.js';
import type { RadioSettings } from './radio-settings.js';
import type { RecentScan } from './recent-scan.js';
import { SetupApOperations } from './setup-ap-operations.js';
import { followSoftApStations } from './softap-stations.js';
import { StationOperations } from './station-operations.js';

export type { ConnectivityClock } from './clock.js';

/**
 * The station interface as the network layer runs it (NESTBOX_NETWORK=on): told when the station
 * joins and leaves; reports its lease back as `lease` events.
 */
export interface StationNetwork {
  /** The station joined: give the interface the station MAC, bring it up, start the DHCP client. */
  associated(mac: string | null): void;
  /** The station left or is being dropped: release the lease and flush the addresses. */
  released(): void;
  on(event: 'lease', listener: (lease: { up: boolean; reason?: string }) => void): unknown;
  off(event: 'lease', listener: (lease: { up: boolean; reason?: string }) => void): unknown;
}

export interface ConnectivityRunnerOptions {
  client: CoprocClientApi;
  device: DeviceState;
  /** The writer of DeviceState's `coprocessor` section. */
  coprocessor: CoprocessorRecord;
  /** The writer of DeviceState's `connectivity`, `error`, `wifi` and `softap` sections. */
  record: ConnectivityRecord;
  networks: NetworksRepo;
  operations: DeviceOperations;
  scan: RecentScan;
  radio: RadioSettings;
  policy: ConnectivityPolicy;
  setupPassphrase: string;
  log: Logger;
  clock?: ConnectivityClock;
  random?: () => number;
  health?: (health: ComponentHealth) => void;
  /** The network layer's station side; absent when the layer is off (association is online). */
  station?: StationNetwork | null;
  /** Told the firmware's version (null: it tells none) and generation at every initialisation. */
  firmwareSeen?: (version: string | null, generation: FirmwareGeneration) => void;
  /** The network layer, told the chip's MACs after every (re)initialisation; absent when it is off. */
  chipInterfaces?: ChipInterfaces | null;
  /** Why a failed operation met a database outage rather than a fault (see store/outage.ts); null when not one. */
  outage?: (error: unknown) => string | null;
}

/** What the machine knows, for those who explain it to people. */
export interface RunnerStatus {
  phase: DeviceStateData['connectivity'];
  failure: ConnectFailure | null;
  /** Why the setup AP is up (or wanted), null when it is not. */
  setupReason: string | null;
  /** The saved network being tried or last tried, null before any. */
  target: SavedNetwork | null;
}

const STOP_GRACE_MS = 2000;
/** The least time a port neither open nor refused is waited for at start (the open is on a busy thread pool). */
const PORT_OPENING_MIN_MS = 5000;

export class ConnectivityRunner {
  private readonly machine: ConnectivityMachine;
  private readonly clock: ConnectivityClock;
  private readonly log: Logger;
  private timer: unknown = null;
  private startTimer: unknown = null;
  private stopped = false;
  /** The network layer's station follows the machine's: joined (associated or up) or not. */
  private stationJoined = false;
  private readonly firmware = new FirmwareModel();
  private readonly station: StationOperations;
  private readonly setupAp: SetupApOperations;
  private readonly init: DeviceInitOptions;
  private readonly listeners: Array<[string, (...args: never[]) => void]> = [];
  private readonly onLease = ({ up, reason }: { up: boolean; reason?: string }) =>
    this.dispatch({ type: 'lease', up, reason });

  constructor(private readonly options: ConnectivityRunnerOptions) {
    this.clock = options.clock ?? realClock;
    this.log = options.log;
    this.machine = new ConnectivityMachine(options.policy, options.random ?? Math.random);
    const parts = {
      ...options,
      firmware: this.firmware,
      clock: this.clock,
      report: (input: MachineInput) => this.dispatch(input),
      isCurrent: (epoch: number) => !this.stopped && this.machine.snapshot().epoch === epoch,
    };
    this.station = new StationOperations(parts);
    this.setupAp = new SetupApOperations(parts);
    this.init = { ...parts, station: this.station, setupAp: this.setupAp };
  }

  /** The setup AP's name: derived from the station MAC once the device has told it. */
  get setupApName(): string {
    return this.setupAp.name;
  }

  get phase(): DeviceStateData['connectivity'] {
    return this.machine.phase;
  }

  get deviceLost(): boolean {
    return this.machine.phase === 'device_lost';
  }

  status(): RunnerStatus {
    const { phase, failure, setupReason } = this.machine.snapshot();
    return { phase, failure, setupReason, target: this.firmware.target };
  }

  async start(): Promise<void> {
    const { client, record, coprocessor } = this.options;
    this.listen('devInit', () => this.dispatch({ type: 'devInit' }));
    // The chip (and, from the current firmware, the version) is what the boot announcement says
    // (serial framing only; the esps driver keeps it, and a boot before we opened is missed).
    const booted = ({ chip, firmwareVersion }: BootAnnouncement) => {
      this.observe({ type: 'boot', chip, firmwareVersion });
      coprocessor.identified(this.firmware.identity());
    };
    // A chip that booted while the daemon was still starting announced itself before this listener.
    if (client.lastBoot) booted(client.lastBoot);
    this.listen('boot', booted);
    this.listen('heartbeat', ({ number }: { number: number }) => {
      coprocessor.heartbeat(number, this.clock.now());
      this.dispatch({ type: 'heartbeat' });
    });
    this.listen('stationDisconnected', ({ reason, ssidBytes }: { reason: number; ssidBytes?: Uint8Array | null }) => {
      const { station } = this.machine.snapshot();
      const stationJoined = station === 'up' || station === 'associated';
      if (this.observe({ type: 'stationDisconnected', reason, ssid: ssidBytes ?? null, stationJoined }))
        this.dispatch({ type: 'stationDisconnected', reason });
    });
    followSoftApStations(
      (event, listener) => this.listen(event, listener),
      record,
      (input) => this.dispatch(input),
    );
    this.listen('link', ({ up, reason }: { up: boolean; reason?: string }) => {
      coprocessor.link(up);
      this.dispatch({ type: 'link', up, reason });
    });
    coprocessor.link(client.linkUp);
    this.options.station?.on('lease', this.onLease);
    const hasNetworks = (await this.options.networks.candidates()).length > 0;
    this.startWhenLinked(() => this.dispatch({ type: 'start', hasNetworks }));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.startTimer !== null) this.clock.clearTimeout(this.startTimer);
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    for (const [event, listener] of this.listeners.splice(0))
      this.options.client.off(event as never, listener as never);
    this.options.station?.off('lease', this.onLease);
    if (this.stationJoined) this.options.station?.released();
    this.stationJoined = false;
    // An operation waiting on the chip (an unanswered firmware probe, a getMac after a reboot) would
    // hold the stop for the whole grace period, and one under way would go on to its next request.
    this.options.client.abandonRequests('the daemon is stopping');
    await this.options.operations.settled(STOP_GRACE_MS);
  }

  // ── public inputs: how the portal and the commands reach the machine ────────────────────────

  /** A person submitted `network` (saved at the top of the list): try it at once; the AP stays up. */
  tryNetwork(network: SavedNetwork): void {
    this.observe({ type: 'submitted', network });
    this.dispatch({ type: 'networksChanged', hasNetworks: true, tryNow: true });
  }

  /** The saved networks changed through the owner's API (added, removed, reordered). */
  async networksChanged(): Promise<void> {
    const hasNetworks = (await this.options.networks.candidates()).length > 0;
    this.dispatch({ type: 'networksChanged', hasNetworks, tryNow: false });
  }

  /** A request to the setup portal came from the AP side: a person is setting the box up. */
  portalUsed(): void {
    this.dispatch({ type: 'portalUsed' });
  }

  enterSetupMode(): void {
    this.dispatch({ type: 'enterSetupMode' });
  }

  /**
   * The control protocol has no reset request (a hard reset needs the EN line): take the radio
   * down and re-run the whole start-up sequence. Also the way to ask a lost device again at once.
   */
  async restartDevice(): Promise<void> {
    if (!this.deviceLost) await this.options.operations.run(() => this.station.takeDown());
    this.log.info('coprocessor restart asked');
    this.dispatch({ type: 'restart' });
  }

  // ── the machine loop ────────────────────────────────────────────────────────────────────────

  /**
   * A transport still opening (a serial port opens asynchronously) is not a lost device: start
   * once the link is up or the open has failed, or when a port neither opened nor refused for
   * longer than a heartbeat (and a busy start) would take.
   */
  private startWhenLinked(begin: () => void): void {
    if (this.options.client.linkUp) return begin();
    let begun = false;
    const once = () => {
      if (begun || this.stopped) return;
      begun = true;
      if (this.startTimer !== null) this.clock.clearTimeout(this.startTimer);
      this.startTimer = null;
      begin();
    };
    // Either way the link reports first: up, or down with the reason the open failed.
    this.listen('link', once);
    const waitMs = Math.max(this.options.policy.heartbeatExpectedMs, PORT_OPENING_MIN_MS);
    this.startTimer = this.clock.setTimeout(once, waitMs);
  }

  private listen(event: string, listener: (...args: never[]) => void): void {
    this.options.client.on(event as never, listener as never);
    this.listeners.push([event, listener]);
  }

  private observe(input: FirmwareInput): boolean {
    return this.firmware.observe({ ...input, at: this.clock.now() });
  }

  private dispatch(input: MachineInput): void {
    if (this.stopped) return;
    const { effects, transitions } = this.machine.dispatch({ ...input, at: this.clock.now() });
    for (const transition of transitions) this.logTransition(transition);
    for (const effect of effects) this.carryOut(effect);
    this.followStation();
    this.writeState();
    this.schedule();
  }

  /** The network layer follows the station: joined (associated or up) or not. */
  private followStation(): void {
    const station = this.options.station;
    if (!station) return;
    const { station: fact } = this.machine.snapshot();
    const joined = fact === 'associated' || fact === 'up';
    if (joined === this.stationJoined) return;
    this.stationJoined = joined;
    if (joined) station.associated(this.options.record.wifi.mac);
    else station.released();
  }

  private schedule(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    const deadline = this.machine.nextDeadline();
    if (deadline === null || this.stopped) return;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = null;
        this.dispatch({ type: 'tick' });
      },
      Math.max(0, deadline - this.clock.now()),
    );
  }

  private logTransition(transition: Transition): void {
    this.log.info(`connectivity ${transition.from} → ${transition.to}`, {
      from: transition.from,
      to: transition.to,
      cause: transition.cause,
    });
  }

  private carryOut(effect: Effect): void {
    switch (effect.type) {
      case 'publish':
        this.options.device.publishEvent(effect.event, effect.payload);
        return;
      case 'initDevice':
        return this.run(effect, () => initialiseDevice(this.init, effect.epoch));
      case 'connect':
        return this.run(effect, () => this.station.connect(effect.epoch, effect.attempt), {
          type: 'connectResult',
          epoch: effect.epoch,
          ok: false,
          failure: 'failed',
          networksLeft: true,
        });
      case 'startSoftAp':
        return this.run(effect, () => this.setupAp.start(effect.epoch));
      case 'stopSoftAp':
        return this.run(effect, () => this.setupAp.stop(effect.epoch));
      case 'pollStations':
        return this.run(effect, () => this.setupAp.pollStations());
      case 'disconnect':
        return this.run(effect, () => this.station.disconnect());
    }
  }

  /**
   * Queues an effect's operation. Each one reports its own outcome to the machine; should one
   * fail in an unplanned way (the database, say), `fallback` keeps the machine from waiting forever.
   * A failure that met a database outage is one warning naming it, not an error with its stack.
   */
  private run(effect: Effect, operation: () => Promise<void>, fallback?: MachineInput): void {
    this.options.operations.run(operation).catch((error) => {
      const outage = this.options.outage?.(error) ?? null;
      if (outage) this.log.warn('connectivity operation did not run', { effect: effect.type, reason: outage });
      else this.log.error('connectivity operation failed', { effect: effect.type, error });
      if (fallback) this.dispatch(fallback);
    });
  }

  private writeState(): void {
    const snapshot = this.machine.snapshot();
    const { failure } = snapshot;
    const target = this.firmware.target;
    this.options.record.phase(
      snapshot.phase,
      failure ? describeFailure(failure, target ? ssidText(target.ssid) : null) : null,
      snapshot.setupReason,
    );
    // The chip answers only once initialised and until heartbeats or probes go unanswered.
    this.options.coprocessor.responding(snapshot.device === 'ready');
    this.options.health?.(
      snapshot.phase === 'device_lost'
        ? { status: 'degraded', detail: 'the Wi-Fi coprocessor does not answer' }
        : { status: 'ok', detail: snapshot.phase },
    );
  }
}
