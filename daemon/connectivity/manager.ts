/**
 * The connectivity manager: feeds coprocessor events and operation results into the pure state
 * machine, carries out the effects it asks for against the coprocessor client (one at a time, in
 * order), keeps the saved networks' records, and writes DeviceState. It is the only way down to
 * the device for the outputs (DeviceCommands) and for the setup portal.
 */
import type { CoprocClientApi, ScanEntry } from '../coproc/api.js';
import { CoprocError } from '../coproc/api.js';
import type { DeviceCommands, PowerSaveMode, ScannedNetwork } from '../device/commands.js';
import type { DeviceState, DeviceStateData } from '../device/state.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import { ConnectivityMachine, type Effect, type MachineInput, type Transition } from './machine.js';
import type { ConnectivityPolicy } from './policy.js';
import { classifyConnectRefusal, describeFailure, type ConnectFailure } from './failures.js';
import type { NetworksRepo, SavedNetwork } from './networks-repo.js';
import type { NetworkInput } from './network-input.js';
import { ssidText } from './network-input.js';
import { setupApSsid } from './setup-identity.js';
import { pickSetupChannel, toScannedNetwork } from './scan-list.js';

export interface ConnectivityClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: ConnectivityClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** The coprocessor firmware update engine (daemon/coproc/ota.ts), as the manager uses it. */
export interface FirmwareUpdater {
  /** OTABegin, OTAWrite in chunks, OTAEnd; `progress` after every chunk. The device reboots after. */
  update(image: Uint8Array, progress: (written: number, total: number) => void): Promise<void>;
}

/** Persisted owner choices that a device reset must not lose. */
export interface DeviceSettingsStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
}

export type CommandErrorKind = 'invalid' | 'unavailable' | 'busy' | 'device';

/** A command the device could not carry out, said for the person who asked. */
export class CommandError extends Error {
  constructor(readonly kind: CommandErrorKind, message: string) {
    super(message);
    this.name = 'CommandError';
  }
}

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

export interface ConnectivityManagerOptions {
  client: CoprocClientApi;
  device: DeviceState;
  networks: NetworksRepo;
  settings: DeviceSettingsStore;
  policy: ConnectivityPolicy;
  setupPassphrase: string;
  log: Logger;
  clock?: ConnectivityClock;
  random?: () => number;
  health?: (health: ComponentHealth) => void;
  firmware?: FirmwareUpdater | null;
  /** The network layer's station side; absent when the layer is off (association is online). */
  station?: StationNetwork | null;
}

export interface SetupStatus {
  state: DeviceStateData['connectivity'];
  ssid: string | null;
  error: ConnectFailure | null;
  error_description: string | null;
  setup_ap: { active: boolean; ssid: string | null; reason: string | null };
}

const TX_POWER_KEY = 'connectivity.tx_power_dbm';
const POWER_SAVE_KEY = 'connectivity.power_save';
const POWER_SAVE_MODES: readonly PowerSaveMode[] = ['none', 'min_modem', 'max_modem'];
const STOP_GRACE_MS = 2000;
/** setTimeout fires at once beyond this; a later deadline is simply re-armed on that tick. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A disconnect reason this recent explains a refused connect (newer firmware sends them). */
const REASON_FRESH_MS = 5000;

export class ConnectivityManager implements DeviceCommands {
  private readonly machine: ConnectivityMachine;
  private readonly clock: ConnectivityClock;
  private readonly log: Logger;
  private timer: unknown = null;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  private lastScan: ScanEntry[] = [];
  private lastReason: { reason: number; at: number } | null = null;
  private target: SavedNetwork | null = null;
  private preferred: number | null = null;
  private apSsid = setupApSsid(null);
  private otaRunning = false;
  private startTimer: unknown = null;
  private readonly listeners: Array<[string, (...args: any[]) => void]> = [];
  private stationJoined = false;
  private readonly onLease = ({ up, reason }: { up: boolean; reason?: string }) => this.dispatch({ type: 'lease', up, reason });

  constructor(private readonly options: ConnectivityManagerOptions) {
    this.clock = options.clock ?? realClock;
    this.log = options.log;
    this.machine = new ConnectivityMachine(options.policy, options.random ?? Math.random);
  }

  get setupApName(): string { return this.apSsid; }
  get setupPassphrase(): string { return this.options.setupPassphrase; }

  async start(): Promise<void> {
    const { client, device } = this.options;
    this.listen('devInit', () => this.dispatch({ type: 'devInit' }));
    // The seed-era firmware has no version request: what it runs on is what its boot announcement
    // says (serial framing only; the esps driver keeps it, and a boot before we opened is missed).
    this.listen('boot', ({ chip }: { chip: string | null }) => {
      if (chip) device.update({ coprocessor: { firmware: `ESP-Hosted-FG (${chip})` } });
    });
    this.listen('heartbeat', ({ number }: { number: number }) => {
      device.update({ coprocessor: { last_heartbeat: new Date(this.clock.now()).toISOString(), heartbeat_number: number } });
      this.dispatch({ type: 'heartbeat' });
    });
    this.listen('stationDisconnected', ({ reason }: { reason: number }) => {
      this.lastReason = { reason, at: this.clock.now() };
      this.dispatch({ type: 'stationDisconnected', reason });
    });
    this.listen('softApStationDisconnected', () => this.dispatch({ type: 'softApStationLeft' }));
    this.listen('link', ({ up, reason }: { up: boolean; reason?: string }) => {
      device.update({ coprocessor: { link: up ? 'up' : 'down' } });
      this.dispatch({ type: 'link', up, reason });
    });
    device.update({ coprocessor: { link: client.linkUp ? 'up' : 'down' } });
    this.options.station?.on('lease', this.onLease);
    const hasNetworks = (await this.options.networks.candidates()).length > 0;
    this.startWhenLinked(() => this.dispatch({ type: 'start', hasNetworks }));
  }

  /**
   * A transport still opening (a serial port opens asynchronously) is not a lost device: start
   * once the link is up, or after the time in which a heartbeat would have come.
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
    this.listen('link', ({ up }: { up: boolean }) => { if (up) once(); });
    this.startTimer = this.clock.setTimeout(once, this.options.policy.heartbeatExpectedMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.startTimer !== null) this.clock.clearTimeout(this.startTimer);
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    for (const [event, listener] of this.listeners.splice(0)) this.options.client.off(event as never, listener as never);
    this.options.station?.off('lease', this.onLease);
    if (this.stationJoined) this.options.station?.released();
    this.stationJoined = false;
    // A device operation may block for minutes (a ConnectAP retrying); shutdown does not wait that long.
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => { timer = setTimeout(resolve, STOP_GRACE_MS); });
    await Promise.race([this.queue.catch(() => undefined), grace]);
    clearTimeout(timer);
  }

  private listen(event: string, listener: (...args: any[]) => void): void {
    this.options.client.on(event as never, listener as never);
    this.listeners.push([event, listener]);
  }

  // ── the machine loop ────────────────────────────────────────────────────────────────────────

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
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.dispatch({ type: 'tick' });
    }, Math.min(MAX_TIMER_MS, Math.max(0, deadline - this.clock.now())));
  }

  private logTransition(transition: Transition): void {
    this.log.info(`connectivity ${transition.from} → ${transition.to}`, { from: transition.from, to: transition.to, cause: transition.cause });
  }

  /** Device operations run one after another, in the order asked. */
  private enqueue<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.queue.then(operation);
    this.queue = run.then(() => undefined, () => undefined);
    return run;
  }

  private carryOut(effect: Effect): void {
    switch (effect.type) {
      case 'publish':
        this.options.device.publishEvent(effect.event, effect.payload);
        return;
      case 'initDevice':
        return this.run(effect, () => this.initDevice(effect.epoch));
      case 'connect':
        return this.run(effect, () => this.connect(effect.epoch, effect.attempt), { type: 'connectResult', epoch: effect.epoch, ok: false, failure: 'failed', networksLeft: true });
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
    this.enqueue(operation).catch((error) => {
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
    });
    this.options.health?.(snapshot.phase === 'device_lost'
      ? { status: 'degraded', detail: 'the Wi-Fi coprocessor does not answer' }
      : { status: 'ok', detail: snapshot.phase });
  }

  // ── effects ─────────────────────────────────────────────────────────────────────────────────

  /** Re-reads the device and re-applies the whole configuration (after boot, reset or loss). */
  private async initDevice(epoch: number): Promise<void> {
    const { client, device, policy } = this.options;
    try {
      const mac = await client.getMac('station');
      await this.reapplySettings();
      const mode = await client.getMode();
      const txPower = await client.getTxPower();
      const powerSave = await client.getPowerSave();
      await client.configHeartbeat(true, policy.heartbeatPeriodS);
      const station = await client.getApConfig();
      const softApUp = (mode === 'softap' || mode === 'apsta') && (await client.getSoftApConfig().then(() => true, () => false));
      this.apSsid = setupApSsid(mac);
      const ota = device.get().coprocessor.ota;
      if (ota.phase === 'rebooting') device.update({ coprocessor: { ota: { ...ota, phase: 'done' } } });
      device.update({
        wifi: { mac, mode, ...(station ? { ssid: station.ssid, bssid: station.bssid, rssi: station.rssi, channel: station.channel } : { ssid: null, bssid: null, rssi: null, channel: null }) },
        coprocessor: { link: 'up', tx_power_dbm: txPower, power_save: powerSave },
        softap: softApUp ? { active: true, ssid: this.apSsid } : { active: false, stations: [] },
      });
      this.log.info('coprocessor initialised', { mac, mode, tx_power_dbm: txPower, power_save: powerSave, heartbeat_s: policy.heartbeatPeriodS });
      this.dispatch({ type: 'initResult', epoch, ok: true, stationUp: station !== null, softApUp });
    } catch (error) {
      this.log.warn('coprocessor initialisation failed', { error: describeError(error) });
      this.dispatch({ type: 'initResult', epoch, ok: false, error: describeError(error) });
    }
  }

  private async reapplySettings(): Promise<void> {
    const { client, settings } = this.options;
    const tx = await settings.get(TX_POWER_KEY);
    const ps = await settings.get(POWER_SAVE_KEY);
    if (tx !== null) await client.setMaxTxPower(Number(tx)).catch((error) => this.log.warn('stored tx power not applied', { error: describeError(error) }));
    if (ps !== null) await client.setPowerSave(ps as PowerSaveMode).catch((error) => this.log.warn('stored power save not applied', { error: describeError(error) }));
  }

  private async connect(epoch: number, attempt: number): Promise<void> {
    const { client, networks, device, policy } = this.options;
    const candidates = await networks.candidates();
    if (candidates.length === 0) {
      this.dispatch({ type: 'connectResult', epoch, ok: false, failure: 'no_network', networksLeft: false });
      return;
    }
    const network = candidates.find((candidate) => candidate.id === this.preferred) ?? candidates[(attempt - 1) % candidates.length]!;
    this.preferred = null;
    this.target = network;
    const name = ssidText(network.ssid);
    const seen = this.findInScan(network.ssid);
    const startedAt = this.clock.now();
    this.log.info('connecting', { ssid: name, attempt, hidden: network.hidden });
    try {
      await client.connectAp({ ssid: network.ssid, password: network.passphrase, wpa3Supported: Boolean(seen?.security.includes('wpa3')) });
      const station = await client.getApConfig().catch(() => null);
      await networks.recordSuccess(network.id);
      device.update({ wifi: { ssid: station?.ssid ?? name, bssid: station?.bssid ?? null, rssi: station?.rssi ?? null, channel: station?.channel ?? null } });
      this.dispatch({ type: 'connectResult', epoch, ok: true });
    } catch (error) {
      const failure = await this.classifyFailure(error, network, startedAt);
      let flagged = false;
      if (failure === 'auth') flagged = await networks.recordAuthFailure(network.id, policy.authFailureLimit);
      const networksLeft = (await networks.candidates()).length > 0;
      this.log.warn('connect failed', { ssid: name, attempt, failure, refused_key_flagged: flagged, error: describeError(error) });
      device.update({ wifi: { ssid: null, bssid: null, rssi: null, channel: null } });
      this.dispatch({ type: 'connectResult', epoch, ok: false, failure, networksLeft });
    }
  }

  private async classifyFailure(error: unknown, network: SavedNetwork, startedAt: number): Promise<ConnectFailure> {
    if (error instanceof CoprocError && error.kind !== 'device') return 'timeout';
    // The device says only "failed": a fresh scan tells a missing network from a refused password.
    await this.refreshScan();
    const seen = this.findInScan(network.ssid);
    const reason = this.lastReason && this.lastReason.at >= startedAt - REASON_FRESH_MS ? this.lastReason.reason : null;
    if (!seen && network.hidden && reason === null) return 'failed';
    return classifyConnectRefusal(seen ? { secured: seen.security !== 'open' } : null, reason);
  }

  private findInScan(ssid: Uint8Array): ScanEntry | undefined {
    return this.lastScan.find((entry) => Buffer.from(entry.ssidBytes).equals(Buffer.from(ssid)));
  }

  private async startSoftAp(epoch: number): Promise<void> {
    const { client, device, networks } = this.options;
    try {
      // The AP takes the channel of the likely home network (from the last scan), so joining it
      // later does not move the radio under the phone. With a scan at hand it starts at once and
      // a fresh scan follows; on first boot it scans first.
      const scanned = this.lastScan.length > 0;
      if (!scanned) await this.refreshScan();
      const saved = (await networks.list()).map((network) => network.ssid);
      const channel = pickSetupChannel(this.lastScan, saved);
      await client.startSoftAp({
        ssid: this.apSsid, password: this.options.setupPassphrase, channel, security: 'wpa2_psk',
        maxConnections: 4, ssidHidden: false, bandwidth: 'ht20',
      });
      device.update({ softap: { active: true, ssid: this.apSsid, channel, stations: [] } });
      this.log.info('setup access point started', { ssid: this.apSsid, channel, security: 'wpa2_psk' });
      this.dispatch({ type: 'softApResult', epoch, started: true, ok: true });
      if (scanned) void this.enqueue(() => this.refreshScan());
    } catch (error) {
      this.log.warn('setup access point did not start', { error: describeError(error) });
      this.dispatch({ type: 'softApResult', epoch, started: true, ok: false, error: describeError(error) });
    }
  }

  /** Keeps the portal's list fresh; "no network found" (−1) is an empty list, not an error. */
  private async refreshScan(): Promise<void> {
    try {
      this.lastScan = await this.options.client.scan();
    } catch (error) {
      if (error instanceof CoprocError && error.kind === 'device') this.lastScan = [];
      else this.log.debug('scan failed', { error: describeError(error) });
    }
  }

  private async stopSoftAp(epoch: number): Promise<void> {
    try {
      await this.options.client.stopSoftAp();
    } catch (error) {
      // resp −1 means "not started": it is down either way.
      if (!(error instanceof CoprocError && error.kind === 'device')) {
        this.dispatch({ type: 'softApResult', epoch, started: false, ok: false, error: describeError(error) });
        return;
      }
    }
    this.options.device.update({ softap: { active: false, channel: null, stations: [] } });
    this.log.info('setup access point stopped');
    this.dispatch({ type: 'softApResult', epoch, started: false, ok: true });
  }

  /** Drops the association; "not connected" (−1) means it is gone already. */
  private async disconnectStation(): Promise<void> {
    await this.options.client.disconnectAp().catch((error) => this.log.debug('station disconnect', { error: describeError(error) }));
    this.options.device.update({ wifi: { ssid: null, bssid: null, rssi: null, channel: null } });
  }

  private async pollStations(): Promise<void> {
    try {
      const stations = await this.options.client.softApStations();
      this.options.device.update({ softap: { stations: stations.map((station) => ({ mac: station.mac, rssi: station.rssi })) } });
      this.dispatch({ type: 'softApStations', count: stations.length });
    } catch (error) {
      this.log.debug('soft AP station list not read', { error: describeError(error) });
    }
  }

  // ── setup portal ────────────────────────────────────────────────────────────────────────────

  scanList(): ScannedNetwork[] {
    return toScannedNetwork(this.lastScan);
  }

  /** Saves what a person typed (at the top of the list) and tries it at once; the AP stays up. */
  async submitNetwork(input: NetworkInput): Promise<SavedNetwork> {
    const network = await this.options.networks.save(input, true);
    this.preferred = network.id;
    this.target = network;
    this.log.info('network submitted', { ssid: ssidText(network.ssid), hidden: network.hidden });
    this.dispatch({ type: 'networksChanged', hasNetworks: true, tryNow: true });
    return network;
  }

  /** The saved networks changed through the owner's API (added, removed, reordered). */
  async networksChanged(): Promise<void> {
    const hasNetworks = (await this.options.networks.candidates()).length > 0;
    this.dispatch({ type: 'networksChanged', hasNetworks, tryNow: false });
  }

  setupStatus(): SetupStatus {
    const snapshot = this.machine.snapshot();
    const state = this.options.device.get();
    const ssid = this.target ? ssidText(this.target.ssid) : state.wifi.ssid;
    return {
      state: snapshot.phase,
      ssid,
      error: snapshot.failure,
      error_description: snapshot.failure ? describeFailure(snapshot.failure, ssid) : null,
      setup_ap: { active: state.softap.active, ssid: state.softap.ssid ?? this.apSsid, reason: snapshot.setupReason },
    };
  }

  /** A request to the setup portal came from the AP side: a person is setting the box up. */
  portalUsed(): void {
    this.dispatch({ type: 'portalUsed' });
  }

  /** The setup portal answers without login only while this is true. */
  inSetupMode(): boolean {
    return this.options.device.get().softap.active || this.machine.phase === 'setup_ap';
  }

  // ── DeviceCommands ──────────────────────────────────────────────────────────────────────────

  async scan(): Promise<ScannedNetwork[]> {
    this.requireDevice();
    const entries = await this.enqueue(() => this.options.client.scan()).catch((error) => {
      if (error instanceof CoprocError && error.kind === 'device') return [] as ScanEntry[]; // −1: nothing in range
      throw new CommandError('device', `The scan failed: ${describeError(error)}`);
    });
    this.lastScan = entries;
    return this.scanList();
  }

  async enterSetupMode(): Promise<void> {
    this.log.info('setup mode asked');
    this.dispatch({ type: 'enterSetupMode' });
  }

  async setTxPower(dbm: number): Promise<number> {
    if (typeof dbm !== 'number' || !Number.isFinite(dbm) || dbm < 2 || dbm > 21) {
      throw new CommandError('invalid', 'Transmit power is a number of dBm from 2 to 21');
    }
    const { client } = this.options;
    const applied = await this.applyRadioSetting('Transmit power', TX_POWER_KEY, String(dbm), async () => {
      await client.setMaxTxPower(dbm);
      return client.getTxPower();
    });
    this.options.device.update({ coprocessor: { tx_power_dbm: applied } });
    this.log.info('transmit power set', { asked_dbm: dbm, applied_dbm: applied });
    return applied;
  }

  async setPowerSave(mode: PowerSaveMode): Promise<void> {
    if (!POWER_SAVE_MODES.includes(mode)) throw new CommandError('invalid', `Power save is one of ${POWER_SAVE_MODES.join(', ')}`);
    const { client } = this.options;
    const applied = await this.applyRadioSetting('Power save', POWER_SAVE_KEY, mode, async () => {
      await client.setPowerSave(mode);
      return client.getPowerSave();
    });
    this.options.device.update({ coprocessor: { power_save: applied } });
    this.log.info('power save set', { mode: applied });
  }

  /** Sets and reads back a radio setting, then keeps the owner's choice for the next device reset. */
  private async applyRadioSetting<T>(what: string, key: string, stored: string, apply: () => Promise<T>): Promise<T> {
    this.requireDevice();
    const applied = await this.enqueue(apply).catch((error) => { throw deviceCommandError(what, error); });
    await this.options.settings.set(key, stored);
    return applied;
  }

  /**
   * The control protocol has no reset request (a hard reset needs the EN line): take the radio
   * down and re-run the whole start-up sequence. Also the way to ask a lost device again at once.
   */
  async restartCoprocessor(): Promise<void> {
    const { client } = this.options;
    if (this.machine.phase !== 'device_lost') {
      await this.enqueue(async () => {
        await client.disconnectAp().catch(() => undefined);
        await client.stopSoftAp().catch(() => undefined);
      });
    }
    this.log.info('coprocessor restart asked');
    this.dispatch({ type: 'restart' });
  }

  /** Writes a coprocessor firmware image; progress goes to DeviceState and as ota_progress events. */
  async updateFirmware(image: Uint8Array): Promise<void> {
    const firmware = this.options.firmware;
    if (!firmware) throw new CommandError('unavailable', 'Firmware updates are not available on this link');
    if (this.otaRunning) throw new CommandError('busy', 'A firmware update is already running');
    this.requireDevice();
    this.otaRunning = true;
    const { device } = this.options;
    const total = image.length;
    let lastPercent = -1;
    const progress = (written: number) => {
      const percent = Math.floor((written / total) * 100);
      device.update({ coprocessor: { ota: { phase: 'writing', bytes: written, total, percent, error: null } } });
      if (percent !== lastPercent) device.publishEvent('ota_progress', { bytes: written, total, percent });
      lastPercent = percent;
    };
    progress(0);
    this.log.info('coprocessor firmware update started', { bytes: total });
    void this.enqueue(() => firmware.update(image, progress)).then(
      () => {
        device.update({ coprocessor: { ota: { phase: 'rebooting', bytes: total, total, percent: 100, error: null } } });
        this.log.info('coprocessor firmware written; the device reboots');
      },
      (error) => {
        device.update({ coprocessor: { ota: { phase: 'failed', bytes: device.get().coprocessor.ota.bytes, total, percent: device.get().coprocessor.ota.percent, error: describeError(error) } } });
        this.log.warn('coprocessor firmware update failed', { error: describeError(error) });
      },
    ).finally(() => { this.otaRunning = false; });
  }

  private requireDevice(): void {
    if (this.machine.phase === 'device_lost') throw new CommandError('unavailable', 'The Wi-Fi coprocessor does not answer');
  }
}

function describeError(error: unknown): string {
  if (error instanceof CoprocError) return `${error.operation}: ${error.message} (${error.kind}${error.code !== null ? ` ${error.code}` : ''})`;
  return error instanceof Error ? error.message : String(error);
}

function deviceCommandError(what: string, error: unknown): CommandError {
  if (error instanceof CoprocError && error.kind === 'device' && error.code === 5) return new CommandError('invalid', `${what}: out of the device's range`);
  if (error instanceof CoprocError && error.kind !== 'device') return new CommandError('unavailable', `${what}: the Wi-Fi coprocessor does not answer`);
  return new CommandError('device', `${what}: the device refused (${describeError(error)})`);
}
