/**
 * The simulated chip's station: joining an access point in either generation — the documented
 * firmware answers ConnectAP when the try ends; the current one answers at once, reports the
 * outcome as an event (305 or 303) and keeps retrying the network it holds — and losing it again
 * (beacon loss, a changed passphrase, a kick, a mode change).
 */
import type { Body } from '../codec.js';
import { formatMac, macToWire, parseMacOctets } from '../mac.js';
import { DISCONNECT_REASON, fail, MODE, ok, SIM_TIMING, type Chip, type Reply } from './chip.js';
import { SEC, sameBytes, type SimNetwork } from './world.js';

interface ConnectTarget {
  ssid: Uint8Array;
  pwd: string;
  bssid: number[] | null;
  wpa3: boolean;
}

export class SimStation {
  /** The access point the station is associated with. */
  network: SimNetwork | null = null;
  private connecting = false;
  private beaconLoss: NodeJS.Timeout | null = null;
  /**
   * Current firmware: the station configuration it holds (kept in flash, so a reset keeps it), one
   * that a ConnectAP handed over but that applies only at the next connected or disconnected event,
   * whether its station task retries after every disconnect, whether a try is running, and whether
   * the last connection is still valid (cleared by DisconnectAP and by a mode change).
   */
  private stored: ConnectTarget | null = null;
  private pending: ConnectTarget | null = null;
  private retrying = false;
  private trying = false;
  private retry: NodeJS.Timeout | null = null;
  private configValid = false;

  constructor(
    private readonly chip: Chip,
    private readonly networks: SimNetwork[],
  ) {}

  // ── requests ─────────────────────────────────────────────────────────────────────────────────

  getApConfig(): Reply {
    const n = this.network;
    if (!n) return { resp: 1 }; // Not_Connected
    // The firmware sends strlen + 1 bytes: the SSID with its trailing NUL.
    return ok({
      ssid: Buffer.concat([n.ssid, Buffer.from([0])]),
      bssid: macToWire(n.bssid),
      rssi: n.rssi,
      chnl: n.channel,
      sec_prot: n.security,
    });
  }

  connectAp(b: Body): Reply | Promise<Reply> {
    return this.chip.current ? this.connectAsync(b) : this.connect(b);
  }

  disconnectAp(): Reply {
    if (!this.network) return fail();
    // The current firmware reports its own disconnect, then tries the stored network again.
    this.configValid = false;
    this.drop(this.chip.current ? DISCONNECT_REASON.assocLeave : null);
    return ok();
  }

  // ── what the rest of the chip does to the station ─────────────────────────────────────────────

  /** SetWifiMode away from the station: no more retries, a waiting configuration dropped, the AP left. */
  stationOff(): void {
    this.stopRetrying();
    this.pending = null;
    this.configValid = false;
    if (this.network) this.drop(DISCONNECT_REASON.assocLeave);
  }

  /** The current firmware's station stops retrying (the station interface went away). */
  stopRetrying(): void {
    this.retrying = false;
    this.chip.clock.cancel(this.retry);
    this.retry = null;
  }

  /** A reboot: everything but the held configuration (flash) is lost. The clock is already cleared. */
  reset(): void {
    this.beaconLoss = null;
    this.associate(null);
    this.connecting = false;
    this.pending = null;
    this.retrying = false;
    this.configValid = false;
    this.trying = false;
    this.retry = null;
  }

  /** The network went out of range: the station notices at the beacon timeout. */
  networkGone(network: SimNetwork): void {
    if (this.network !== network || this.beaconLoss) return;
    this.beaconLoss = this.chip.clock.after(SIM_TIMING.beaconTimeoutMs, () => {
      this.beaconLoss = null;
      if (this.network === network && !network.inRange) this.drop(DISCONNECT_REASON.beaconTimeout);
    });
  }

  /** The access point drops the station with this IDF reason; false when it is not associated. */
  kick(reason: number): boolean {
    if (!this.network) return false;
    this.drop(reason);
    return true;
  }

  /** The network the station retries on its own (current firmware), or null. */
  get retryingSsid(): string | null {
    return this.retrying && this.stored ? Buffer.from(this.stored.ssid).toString('latin1') : null;
  }

  // ── the documented firmware ───────────────────────────────────────────────────────────────────

  private async connect(b: Body): Promise<Reply> {
    const { chip } = this;
    const epoch = chip.epoch;
    const ssid = (b.ssid as Uint8Array).slice(0, 32);
    const pwd = Buffer.from((b.pwd as Uint8Array).slice(0, 64)).toString('latin1');
    const bssidText = Buffer.from(b.bssid as Uint8Array).toString('latin1');
    const bssid = bssidText ? parseMacOctets(bssidText) : null;
    if (this.network) this.drop(null); // host-triggered: no event
    chip.stationOn();
    if (bssidText && !bssid) return fail();
    this.connecting = true;
    try {
      await chip.clock.sleep(SIM_TIMING.connectMs);
      if (epoch !== chip.epoch) return null;
      const target = this.networks.find(
        (n) => n.inRange && sameBytes(n.ssid, ssid) && (!bssid || n.bssid === formatMac(bssid)),
      );
      if (!target) {
        await chip.clock.sleep(SIM_TIMING.notFoundMs);
        return epoch === chip.epoch ? fail() : null;
      }
      const wpa3Refused = target.security === SEC.wpa3_psk && !b.is_wpa3_supported;
      const passes = target.security === SEC.open || (pwd === target.passphrase && !wpa3Refused);
      if (!passes) {
        await chip.clock.sleep(SIM_TIMING.authFailMs);
        return epoch === chip.epoch ? fail() : null;
      }
      this.associate(target);
      return ok({ mac: macToWire(chip.macs.sta) });
    } finally {
      if (epoch === chip.epoch) this.connecting = false;
    }
  }

  // ── the current firmware ──────────────────────────────────────────────────────────────────────

  /**
   * Current firmware: the answer comes at once; the outcome follows as Event_StationConnectedToAP
   * or Event_StationDisconnectFromAP. A configuration other than the one held waits for the next
   * connected or disconnected event, so the try that runs first is still the previous network's.
   * Connected and valid, the firmware only repeats the last connected event (the network it is on).
   */
  private connectAsync(b: Body): Reply {
    const { chip } = this;
    const bssidText = Buffer.from(b.bssid as Uint8Array).toString('latin1');
    const bssid = bssidText ? parseMacOctets(bssidText) : null;
    if (bssidText && !bssid) return fail();
    const target: ConnectTarget = {
      ssid: (b.ssid as Uint8Array).slice(0, 32),
      pwd: Buffer.from((b.pwd as Uint8Array).slice(0, 64)).toString('latin1'),
      bssid,
      wpa3: Boolean(b.is_wpa3_supported),
    };
    const modeChanged = (chip.mode & MODE.sta) === 0;
    if (modeChanged) chip.stationOn();
    this.stored ??= target; // nothing provisioned: taken at once
    if (!sameTarget(target, this.stored)) this.pending = target;
    if (!modeChanged && this.network && this.configValid) {
      this.emitConnected(this.network);
      return ok({ mac: macToWire(chip.macs.sta) });
    }
    if (modeChanged || !this.configValid) {
      this.retrying = true;
      if (this.network) this.drop(DISCONNECT_REASON.assocLeave);
      else this.tryNow();
    }
    return ok({ mac: macToWire(chip.macs.sta) });
  }

  private tryNow(): void {
    this.chip.clock.cancel(this.retry);
    this.retry = null;
    if (!this.trying) void this.keepTrying();
  }

  /** The firmware's station task: try the held network until associated or the station stops. */
  private async keepTrying(): Promise<void> {
    const { chip } = this;
    const epoch = chip.epoch;
    this.trying = true;
    try {
      while (this.stillTrying(epoch) && this.stored) {
        const target = this.stored;
        const outcome = await this.tryOnce(target);
        if (!this.stillTrying(epoch)) {
          if (epoch === chip.epoch && outcome === 'associated') this.associate(null);
          return;
        }
        if (outcome === 'associated') {
          if (!this.takePending()) {
            this.configValid = true;
            this.emitConnected(this.network!);
            return;
          }
          // Connected on the old configuration with a new one waiting: leave, then try that.
          this.associate(null);
          this.emitDisconnect(DISCONNECT_REASON.assocLeave, target.ssid, null);
          continue;
        }
        this.emitDisconnect(outcome, target.ssid, null);
        this.takePending();
        await chip.clock.sleep(SIM_TIMING.retryMs);
      }
    } finally {
      if (epoch === chip.epoch) this.trying = false;
    }
  }

  private stillTrying(epoch: number): boolean {
    return epoch === this.chip.epoch && this.retrying && (this.chip.mode & MODE.sta) !== 0;
  }

  /** The configuration a ConnectAP left waiting becomes the held one; true when there was one. */
  private takePending(): boolean {
    if (!this.pending) return false;
    this.stored = this.pending;
    this.pending = null;
    return true;
  }

  /** One association attempt; the disconnect reason when it fails. */
  private async tryOnce(target: ConnectTarget): Promise<'associated' | number> {
    const { chip } = this;
    const epoch = chip.epoch;
    await chip.clock.sleep(SIM_TIMING.connectMs);
    if (epoch !== chip.epoch) return DISCONNECT_REASON.assocLeave;
    const network = this.networks.find(
      (n) => n.inRange && sameBytes(n.ssid, target.ssid) && (!target.bssid || n.bssid === formatMac(target.bssid)),
    );
    if (!network) {
      await chip.clock.sleep(SIM_TIMING.notFoundMs);
      return DISCONNECT_REASON.noApFound;
    }
    const wpa3Refused = network.security === SEC.wpa3_psk && !target.wpa3;
    if (network.security !== SEC.open && (target.pwd !== network.passphrase || wpa3Refused)) {
      await chip.clock.sleep(SIM_TIMING.authFailMs);
      return DISCONNECT_REASON.handshakeTimeout;
    }
    if (epoch !== chip.epoch) return DISCONNECT_REASON.assocLeave;
    this.associate(network);
    return 'associated';
  }

  // ── both ─────────────────────────────────────────────────────────────────────────────────────

  private emitConnected(network: SimNetwork): void {
    this.chip.emit('event', 'stationConnected', {
      ssid: network.ssid.slice(),
      ssid_len: network.ssid.length,
      bssid: macToWire(network.bssid),
      channel: network.channel,
      authmode: network.security,
      aid: 1,
    });
  }

  private emitDisconnect(reason: number, ssid: Uint8Array, network: SimNetwork | null): void {
    if (!this.chip.current) {
      this.chip.emit('event', 'stationDisconnected', { resp: reason });
      return;
    }
    this.chip.emit('event', 'stationDisconnected', {
      resp: 0,
      ssid: ssid.slice(),
      ssid_len: ssid.length,
      bssid: network ? macToWire(network.bssid) : undefined,
      reason,
      rssi: network?.rssi,
    });
  }

  /** Leaves the access point; `reason` null when the host asked for it (the firmware stays quiet). */
  private drop(reason: number | null): void {
    const left = this.network;
    this.associate(null);
    this.chip.clock.cancel(this.beaconLoss);
    this.beaconLoss = null;
    if (reason !== null && !this.connecting) this.emitDisconnect(reason, left?.ssid ?? new Uint8Array(), left);
    if (!this.chip.current) return;
    this.takePending();
    if (this.retrying && !this.trying && !this.retry) {
      this.retry = this.chip.clock.after(SIM_TIMING.retryMs, () => {
        this.retry = null;
        if (!this.trying) void this.keepTrying();
      });
    }
  }

  private associate(network: SimNetwork | null): void {
    const before = this.network;
    this.network = network;
    if (before === network) return;
    if (before)
      this.chip.emit('radio', {
        radio: 'station',
        associated: false,
        ssid: Buffer.from(before.ssid).toString('latin1'),
      });
    if (network)
      this.chip.emit('radio', {
        radio: 'station',
        associated: true,
        ssid: Buffer.from(network.ssid).toString('latin1'),
        bssid: network.bssid,
        mac: this.chip.macs.sta,
      });
  }
}

function sameTarget(a: ConnectTarget, b: ConnectTarget): boolean {
  const bssid = (t: ConnectTarget) => (t.bssid ? formatMac(t.bssid) : null);
  return sameBytes(a.ssid, b.ssid) && a.pwd === b.pwd && bssid(a) === bssid(b) && a.wpa3 === b.wpa3;
}
