/**
 * The machine runner: the one place where the pure state machine meets the world. It feeds the
 * coprocessor's events, the network layer's lease and the results of its own operations into the
 * machine, carries out the effects the machine asks for (one at a time, in order, in the shared
 * line of device operations), keeps the timer for the machine's next deadline, and writes the
 * connectivity side of DeviceState — it is the only writer of those fields. The setup portal and
 * the device commands reach the machine only through its public inputs below.
 */
import type { ConnectRequest, CoprocClientApi, FirmwareInfo, WifiModeName } from '../coproc/api.js';
import { CoprocError } from '../coproc/api.js';
import type { DeviceState, DeviceStateData } from '../device/state.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import { tellChipInterfaces, type ChipInterfaces } from './chip-interfaces.js';
import { describeDeviceError, type DeviceOperations } from './device-operations.js';
import { watchConnectOutcome, type ConnectOutcome } from './connect-outcome.js';
import { classifyConnectRefusal, describeFailure, type ConnectFailure } from './failures.js';
import { ConnectivityMachine, type Effect, type MachineInput, type Transition } from './machine.js';
import { sameSsid, ssidText } from './network-input.js';
import type { NetworksRepo, SavedNetwork } from './networks-repo.js';
import type { ConnectivityPolicy } from './policy.js';
import type { RadioSettings } from './radio-settings.js';
import type { RecentScan } from './recent-scan.js';
import { pickSetupChannel } from './scan-list.js';
import { setupApSsid } from './setup-identity.js';
import { followSoftApStations } from './softap-stations.js';
import { realClock, type ConnectivityClock } from './clock.js';

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
  firmwareSeen?: (version: string | null, generation: FirmwareInfo['generation']) => void;
  /** The network layer, told the chip's MACs after every (re)initialisation; absent when it is off. */
  chipInterfaces?: ChipInterfaces | null;
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
/** setTimeout fires at once beyond this; a later deadline is simply re-armed on that tick. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A disconnect reason this recent explains a refused connect (newer firmware sends them). */
const REASON_FRESH_MS = 5000;
/**
 * How long a GetFwVersion probe may go unanswered before the firmware counts as the documented one:
 * real time, never time-scaled (an answer takes as long on a fast clock), with room for a busy host.
 */
const FIRMWARE_PROBE_MS = 2000;
/** The least time a port neither open nor refused is waited for at start (the open is on a busy thread pool). */
const PORT_OPENING_MIN_MS = 5000;
const NO_STATION = { ssid: null, bssid: null, rssi: null, channel: null } as const;

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

export class ConnectivityRunner {
  private readonly machine: ConnectivityMachine;
  private readonly clock: ConnectivityClock;
  private readonly log: Logger;
  private timer: unknown = null;
  private startTimer: unknown = null;
  private stopped = false;
  private lastReason: { reason: number; at: number } | null = null;
  private target: SavedNetwork | null = null;
  private preferred: number | null = null;
  private apSsid = setupApSsid(null);
  private stationJoined = false;
  private chip: string | null = null;
  private firmwareVersion: string | null = null;
  private generation: FirmwareInfo['generation'] | null = null;
  /** The last boot announcement carried a firmware version (only the current firmware's does); null: none seen. */
  private bootAnnouncedVersion: boolean | null = null;
  /**
   * Current firmware: the station configuration it holds as far as this host knows (null: unknown,
   * as after a boot), the network it is on, and the one it retries by itself after a drop.
   */
  private firmwareConfig: { ssid: Uint8Array; passphrase: string } | null = null;
  private joinedSsid: Uint8Array | null = null;
  private firmwareRetrying: Uint8Array | null = null;
  private readonly listeners: Array<[string, (...args: never[]) => void]> = [];
  private readonly onLease = ({ up, reason }: { up: boolean; reason?: string }) =>
    this.dispatch({ type: 'lease', up, reason });

  constructor(private readonly options: ConnectivityRunnerOptions) {
    this.clock = options.clock ?? realClock;
    this.log = options.log;
    this.machine = new ConnectivityMachine(options.policy, options.random ?? Math.random);
  }

  /** The setup AP's name: derived from the station MAC once the device has told it. */
  get setupApName(): string {
    return this.apSsid;
  }

  get phase(): DeviceStateData['connectivity'] {
    return this.machine.phase;
  }

  get deviceLost(): boolean {
    return this.machine.phase === 'device_lost';
  }

  status(): RunnerStatus {
    const { phase, failure, setupReason } = this.machine.snapshot();
    return { phase, failure, setupReason, target: this.target };
  }

  async start(): Promise<void> {
    const { client, device } = this.options;
    this.listen('devInit', () => this.dispatch({ type: 'devInit' }));
    // The chip (and, from the current firmware, the version) is what the boot announcement says
    // (serial framing only; the esps driver keeps it, and a boot before we opened is missed).
    this.listen('boot', ({ chip, firmwareVersion }: { chip: string | null; firmwareVersion: string | null }) => {
      if (chip) this.chip = chip;
      if (firmwareVersion) this.firmwareVersion = firmwareVersion;
      this.bootAnnouncedVersion = firmwareVersion !== null;
      device.update({
        coprocessor: {
          firmware: this.firmwareText(),
          chip: this.chip,
          firmware_version: this.firmwareVersion,
          ...(firmwareVersion ? { firmware_generation: 'current' as const } : {}),
        },
      });
    });
    this.listen('heartbeat', ({ number }: { number: number }) => {
      device.update({
        coprocessor: { last_heartbeat: new Date(this.clock.now()).toISOString(), heartbeat_number: number },
      });
      this.dispatch({ type: 'heartbeat' });
    });
    this.listen('stationDisconnected', ({ reason, ssidBytes }: { reason: number; ssidBytes?: Uint8Array | null }) => {
      this.lastReason = { reason, at: this.clock.now() };
      // The current firmware names the network: a try of another one (its previous configuration,
      // or one being connected) is not the station the box is on dropping.
      if (ssidBytes && this.joinedSsid && !sameSsid(ssidBytes, this.joinedSsid)) return;
      const { station } = this.machine.snapshot();
      if (ssidBytes && (station === 'up' || station === 'associated')) this.firmwareRetrying = ssidBytes;
      this.dispatch({ type: 'stationDisconnected', reason });
    });
    followSoftApStations(
      (event, listener) => this.listen(event, listener),
      device,
      (input) => this.dispatch(input),
    );
    this.listen('link', ({ up, reason }: { up: boolean; reason?: string }) => {
      device.update({ coprocessor: { link: up ? 'up' : 'down' } });
      this.dispatch({ type: 'link', up, reason });
    });
    device.update({ coprocessor: { link: client.linkUp ? 'up' : 'down' } });
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
    await this.options.operations.settled(STOP_GRACE_MS);
  }

  // ── public inputs: how the portal and the commands reach the machine ────────────────────────

  /** A person submitted `network` (saved at the top of the list): try it at once; the AP stays up. */
  tryNetwork(network: SavedNetwork): void {
    this.preferred = network.id;
    this.target = network;
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
    const { client } = this.options;
    if (!this.deviceLost) {
      await this.options.operations.run(async () => {
        if (this.generation === 'current') await this.stopStation();
        else await client.disconnectAp().catch(() => undefined);
        await client.stopSoftAp().catch(() => undefined);
      });
    }
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
    if (joined) station.associated(this.options.device.get().wifi.mac);
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
      Math.min(MAX_TIMER_MS, Math.max(0, deadline - this.clock.now())),
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
        return this.run(effect, () => this.initDevice(effect.epoch));
      case 'connect':
        return this.run(effect, () => this.connect(effect.epoch, effect.attempt), {
          type: 'connectResult',
          epoch: effect.epoch,
          ok: false,
          failure: 'failed',
          networksLeft: true,
        });
      case 'startSoftAp':
        return this.run(effect, () => this.startSoftAp(effect.epoch));
      case 'stopSoftAp':
        return this.run(effect, () => this.stopSoftAp(effect.epoch));
      case 'pollStations':
        return this.run(effect, () => this.pollStations());
      case 'disconnect':
        return this.run(effect, () => this.disconnectStation());
    }
  }

  /**
   * Queues an effect's operation. Each one reports its own outcome to the machine; should one
   * fail in an unplanned way (the database, say), `fallback` keeps the machine from waiting forever.
   */
  private run(effect: Effect, operation: () => Promise<void>, fallback?: MachineInput): void {
    this.options.operations.run(operation).catch((error) => {
      this.log.error('connectivity operation failed', { effect: effect.type, error });
      if (fallback) this.dispatch(fallback);
    });
  }

  private writeState(): void {
    const snapshot = this.machine.snapshot();
    const failure = snapshot.failure;
    this.options.device.update({
      connectivity: snapshot.phase,
      error: failure ? describeFailure(failure, this.target ? ssidText(this.target.ssid) : null) : null,
      softap: { reason: snapshot.setupReason },
      // The chip answers only once initialised and until heartbeats or probes go unanswered.
      coprocessor: { responding: snapshot.device === 'ready' },
    });
    this.options.health?.(
      snapshot.phase === 'device_lost'
        ? { status: 'degraded', detail: 'the Wi-Fi coprocessor does not answer' }
        : { status: 'ok', detail: snapshot.phase },
    );
  }

  private firmwareText(): string | null {
    if (!this.chip && !this.firmwareVersion) return null;
    const version = this.firmwareVersion ? ` ${this.firmwareVersion}` : '';
    return `ESP-Hosted-FG${version}${this.chip ? ` (${this.chip})` : ''}`;
  }

  // ── effects ─────────────────────────────────────────────────────────────────────────────────

  /** Re-reads the device and re-applies the whole configuration (after boot, reset or loss). */
  private async initDevice(epoch: number): Promise<void> {
    const { client, device, policy } = this.options;
    try {
      const mac = await client.getMac('station');
      await tellChipInterfaces(client, this.options.chipInterfaces, mac, this.log);
      // Silence is the documented firmware's answer.
      const firmware = await client.detectFirmware(FIRMWARE_PROBE_MS);
      if (firmware.version) this.firmwareVersion = firmware.version.text;
      // A probe unanswered on a busy link is not proof of the documented firmware when the boot
      // announcement carried a version.
      const generation = this.bootAnnouncedVersion === true ? 'current' : firmware.generation;
      this.generation = generation;
      this.firmwareConfig = null;
      this.firmwareRetrying = null;
      device.update({
        coprocessor: {
          firmware_generation: generation,
          firmware: this.firmwareText(),
          firmware_version: this.firmwareVersion,
        },
      });
      this.options.firmwareSeen?.(this.firmwareVersion, generation);
      if (generation === 'current' && policy.wifiCountry)
        await client
          .setCountryCode(policy.wifiCountry)
          .catch((error) => this.log.warn('Wi-Fi country not applied', { error: describeDeviceError(error) }));
      await this.options.radio.reapply(client);
      let mode = await client.getMode();
      const txPower = await client.getTxPower();
      const powerSave = await client.getPowerSave();
      await client.configHeartbeat(true, policy.heartbeatPeriodS);
      const station = await client.getApConfig();
      this.joinedSsid = station?.ssidBytes ?? null;
      // Not connected, the current firmware keeps trying what it holds (after a fresh flash, the
      // example network of its build): the host decides what is tried, so that stops.
      if (generation === 'current' && !station) mode = await this.stopStation(mode);
      const softApUp =
        (mode === 'softap' || mode === 'apsta') &&
        (await client.getSoftApConfig().then(
          () => true,
          () => false,
        ));
      this.apSsid = setupApSsid(mac);
      const ota = device.get().coprocessor.ota;
      if (ota.phase === 'rebooting') device.update({ coprocessor: { ota: { ...ota, phase: 'done' } } });
      device.update({
        wifi: {
          mac,
          mode,
          ...(station
            ? { ssid: station.ssid, bssid: station.bssid, rssi: station.rssi, channel: station.channel }
            : NO_STATION),
        },
        coprocessor: { link: 'up', tx_power_dbm: txPower, power_save: powerSave },
        softap: softApUp ? { active: true, ssid: this.apSsid } : { active: false, stations: [] },
      });
      this.log.info('coprocessor initialised', {
        mac,
        firmware: generation,
        version: this.firmwareVersion,
        country: generation === 'current' ? policy.wifiCountry : null,
        mode,
        tx_power_dbm: txPower,
        power_save: powerSave,
        heartbeat_s: policy.heartbeatPeriodS,
      });
      this.dispatch({ type: 'initResult', epoch, ok: true, stationUp: station !== null, softApUp });
    } catch (error) {
      this.log.warn('coprocessor initialisation failed', { error: describeDeviceError(error) });
      this.dispatch({ type: 'initResult', epoch, ok: false, error: describeDeviceError(error) });
    }
  }

  private async connect(epoch: number, attempt: number): Promise<void> {
    const { networks, device, policy } = this.options;
    const candidates = await networks.candidates();
    if (candidates.length === 0) {
      this.dispatch({ type: 'connectResult', epoch, ok: false, failure: 'no_network', networksLeft: false });
      return;
    }
    // The network the firmware is already retrying by itself goes first: no second attempt races it.
    const network =
      candidates.find((candidate) => candidate.id === this.preferred) ??
      candidates.find((candidate) => this.firmwareRetries(candidate)) ??
      candidates[(attempt - 1) % candidates.length];
    this.preferred = null;
    this.target = network;
    const name = ssidText(network.ssid);
    const startedAt = this.clock.now();
    this.log.info('connecting', { ssid: name, attempt, hidden: network.hidden });
    const refused = await this.join(network).then(
      () => null,
      async (error: unknown) => ({ error, failure: await this.classifyFailure(error, network, startedAt) }),
    );
    if (refused === null) {
      const station = await this.options.client.getApConfig().catch(() => null);
      await networks.recordSuccess(network.id);
      this.joinedSsid = network.ssid;
      device.update({
        wifi: {
          ssid: station?.ssid ?? name,
          bssid: station?.bssid ?? null,
          rssi: station?.rssi ?? null,
          channel: station?.channel ?? null,
        },
      });
      this.dispatch({ type: 'connectResult', epoch, ok: true });
      return;
    }
    const { failure, error } = refused;
    this.joinedSsid = null;
    let flagged = false;
    if (failure === 'auth') flagged = await networks.recordAuthFailure(network.id, policy.authFailureLimit);
    const networksLeft = (await networks.candidates()).length > 0;
    this.log.warn('connect failed', {
      ssid: name,
      attempt,
      failure,
      refused_key_flagged: flagged,
      error: describeDeviceError(error),
    });
    device.update({ wifi: NO_STATION });
    this.dispatch({ type: 'connectResult', epoch, ok: false, failure, networksLeft });
  }

  /** Joins `network`: resolves once joined, rejects with why not. */
  private async join(network: SavedNetwork): Promise<void> {
    const seen = this.options.scan.find(network.ssid);
    const request = {
      ssid: network.ssid,
      password: network.passphrase,
      wpa3Supported: Boolean(seen?.security.includes('wpa3')),
    };
    if (this.generation !== 'current') {
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
   * about this network (connect-outcome.ts). Connected elsewhere, the firmware applies the new
   * configuration only at its next disconnect, which DisconnectAP brings about.
   */
  private async joinByEvents(network: SavedNetwork, request: ConnectRequest): Promise<ConnectOutcome> {
    const { client, policy } = this.options;
    const watch = {
      ssid: network.ssid,
      timeoutMs: policy.connectOutcomeMs,
      refusalsNeeded: this.refusalsNeeded(network),
    };
    // The firmware's own retry is under way: listen before asking where it is, so an event that
    // comes meanwhile is not missed.
    const retry = this.firmwareRetries(network) ? watchConnectOutcome(client, watch, this.clock) : null;
    const joined = await client.getApConfig().catch((error: unknown) => {
      retry?.cancel();
      throw error;
    });
    if (joined !== null && sameSsid(joined.ssidBytes, network.ssid) && this.holds(network)) {
      retry?.cancel();
      return { ok: true };
    }
    if (retry) return retry.outcome;
    await client.connectAp(request);
    // Listening starts after the answer: what the firmware sent before it is about what it held.
    const pending = watchConnectOutcome(client, watch, this.clock);
    this.firmwareConfig = { ssid: network.ssid, passphrase: network.passphrase };
    this.firmwareRetrying = null;
    if (joined) await client.disconnectAp().catch(() => undefined);
    return pending.outcome;
  }

  /** The firmware holds this network with this passphrase (as far as this host knows). */
  private holds(network: SavedNetwork): boolean {
    const held = this.firmwareConfig;
    return held !== null && sameSsid(held.ssid, network.ssid) && held.passphrase === network.passphrase;
  }

  private firmwareRetries(network: SavedNetwork): boolean {
    return this.firmwareRetrying !== null && sameSsid(this.firmwareRetrying, network.ssid) && this.holds(network);
  }

  /**
   * The firmware's first try after a ConnectAP is of the configuration it held before. Held for
   * this network with another passphrase (or unknown, as after a boot), its refusal would read as
   * this one's: the password counts as refused at the second refusal.
   */
  private refusalsNeeded(network: SavedNetwork): number {
    const held = this.firmwareConfig;
    return held !== null && (!sameSsid(held.ssid, network.ssid) || held.passphrase === network.passphrase) ? 1 : 2;
  }

  /**
   * The current firmware retries after every disconnect, also one the host asked for; only a mode
   * without the station stops it (the soft AP stays). Returns the mode now set.
   */
  private async stopStation(mode?: WifiModeName): Promise<WifiModeName> {
    const { client, device } = this.options;
    this.firmwareRetrying = null;
    this.joinedSsid = null;
    try {
      const now = mode ?? (await client.getMode());
      if (now !== 'station' && now !== 'apsta') return now;
      const next = now === 'apsta' ? 'softap' : 'none';
      await client.setMode(next);
      device.update({ wifi: { mode: next } });
      return next;
    } catch (error) {
      this.log.debug('station not stopped', { error: describeDeviceError(error) });
      return mode ?? 'none';
    }
  }

  private async classifyFailure(error: unknown, network: SavedNetwork, startedAt: number): Promise<ConnectFailure> {
    if (error instanceof ConnectRefused) return error.failure;
    if (error instanceof CoprocError && error.kind !== 'device') return 'timeout';
    // The device says only "failed": a fresh scan tells a missing network from a refused password.
    await this.options.scan.refresh();
    const seen = this.options.scan.find(network.ssid);
    const reason = this.lastReason && this.lastReason.at >= startedAt - REASON_FRESH_MS ? this.lastReason.reason : null;
    if (!seen && network.hidden && reason === null) return 'failed';
    return classifyConnectRefusal(seen ? { secured: seen.security !== 'open' } : null, reason);
  }

  private async startSoftAp(epoch: number): Promise<void> {
    const { client, device, networks, scan } = this.options;
    try {
      // The AP takes the channel of the likely home network (from the last scan), so joining it
      // later does not move the radio under the phone. With a scan at hand it starts at once and
      // a fresh scan follows; on first boot it scans first.
      const scanned = scan.entries.length > 0;
      if (!scanned) await scan.refresh();
      const saved = (await networks.list()).map((network) => network.ssid);
      const channel = pickSetupChannel(scan.entries, saved);
      await client.startSoftAp({
        ssid: this.apSsid,
        password: this.options.setupPassphrase,
        channel,
        security: 'wpa2_psk',
        maxConnections: 4,
        ssidHidden: false,
        bandwidth: 'ht20',
      });
      const mode = await this.readMode();
      // The current firmware goes AP-only unless the station is connected, which ends its own retries.
      if (this.generation === 'current' && mode === 'softap') this.firmwareRetrying = null;
      device.update({ softap: { active: true, ssid: this.apSsid, channel, stations: [] }, wifi: { mode } });
      this.log.info('setup access point started', { ssid: this.apSsid, channel, security: 'wpa2_psk' });
      this.dispatch({ type: 'softApResult', epoch, started: true, ok: true });
      if (scanned) void this.options.operations.run(() => scan.refresh());
    } catch (error) {
      this.log.warn('setup access point did not start', { error: describeDeviceError(error) });
      this.dispatch({ type: 'softApResult', epoch, started: true, ok: false, error: describeDeviceError(error) });
    }
  }

  private async stopSoftAp(epoch: number): Promise<void> {
    try {
      await this.options.client.stopSoftAp();
    } catch (error) {
      // resp −1 means "not started": it is down either way.
      if (!(error instanceof CoprocError && error.kind === 'device')) {
        this.dispatch({ type: 'softApResult', epoch, started: false, ok: false, error: describeDeviceError(error) });
        return;
      }
    }
    const mode = await this.readMode();
    this.options.device.update({ softap: { active: false, channel: null, stations: [] }, wifi: { mode } });
    this.log.info('setup access point stopped');
    this.dispatch({ type: 'softApResult', epoch, started: false, ok: true });
  }

  /**
   * The device's own word on its mode: starting or stopping the soft AP changes it (the current
   * firmware goes AP-only when the station is not connected), so the state never guesses.
   */
  private async readMode(): Promise<WifiModeName | undefined> {
    try {
      return await this.options.client.getMode();
    } catch (error) {
      this.log.debug('Wi-Fi mode not read', { error: describeDeviceError(error) });
      return undefined;
    }
  }

  /** Drops the association; "not connected" (−1) means it is gone already. */
  private async disconnectStation(): Promise<void> {
    if (this.generation === 'current') await this.stopStation();
    else
      await this.options.client
        .disconnectAp()
        .catch((error) => this.log.debug('station disconnect', { error: describeDeviceError(error) }));
    this.options.device.update({ wifi: NO_STATION });
  }

  private async pollStations(): Promise<void> {
    try {
      const stations = await this.options.client.softApStations();
      this.options.device.update({
        softap: { stations: stations.map((station) => ({ mac: station.mac, rssi: station.rssi })) },
      });
      this.dispatch({ type: 'softApStations', count: stations.length });
    } catch (error) {
      this.log.debug('soft AP station list not read', { error: describeDeviceError(error) });
    }
  }
}
