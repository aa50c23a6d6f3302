/**
 * The virtual coprocessor: ESP-Hosted-FG's behaviour on a simulated radio, in either generation —
 * the documented (seed-era) firmware summed up in docs/architecture.md, "Coprocessor link", or the
 * current one (2024 on): ConnectAP answered at once with the outcome as an event (305 or 303 with
 * the reason in its own field), its own retries of the stored network, uid echoed, version and
 * country code, phones joining the soft AP announced (306). It takes decoded requests and
 * answers them, or — in the cases where the firmware sends nothing — answers null. It emits the
 * firmware's events and reboots like it.
 * This file is the chip: its request table, the radio's own settings (mode, MACs, power, country,
 * vendor IEs, heartbeat), reboots and the scenario controls; the station (sim/station.ts), the
 * soft AP (sim/soft-ap.ts) and OTA (sim/ota.ts) are its parts, sharing sim/chip.ts.
 * Framing and bytes are the link's business (sim/link.ts).
 */
import { EventEmitter } from 'node:events';
import type { Body } from '../codec.js';
import type { FirmwareGeneration, OperationName } from '../operations.js';
import { formatMac, macToWire, parseMacOctets } from '../mac.js';
import { DISCONNECT_REASON, fail, MODE, ok, SIM_TIMING, type Chip, type Reply, type SimDeviceEvents } from './chip.js';
import { SimClock } from './clock.js';
import { SimOta } from './ota.js';
import { SimSoftAp } from './soft-ap.js';
import { SimStation } from './station.js';
import { defaultNetworks, sameBytes, ssidBytes, type SimNetwork } from './world.js';

export { DISCONNECT_REASON, SIM_TIMING, type RadioChange, type Reply, type SimDeviceEvents } from './chip.js';
export type { SoftApStation } from './soft-ap.js';

type Handler = (body: Body | null) => Reply | Promise<Reply>;

/** What the current firmware's build announces (esp_fw_version.h of Espressif's snapshot). */
export const SIM_FW_VERSION = { name: 'FG', parts: [1, 0, 0, 0, 0] } as const;
/** esp_wifi_get_country_code before anyone set one: "01", the world-safe regulatory domain. */
const DEFAULT_COUNTRY = '01';
/** ESP_ERR_INVALID_ARG, which the current firmware returns as resp for a bad country code. */
const ESP_ERR_INVALID_ARG = 0x102;
const FEATURE = { wifi: 1, bluetooth: 2 } as const;

const HEARTBEAT_MIN_S = 10;
const HEARTBEAT_MAX_S = 3600;
const TX_POWER_MIN = 8;
const TX_POWER_MAX = 84;
/** The levels the driver rounds to, in 0.25 dBm (ESP-Hosted's control API documentation). */
const TX_POWER_LEVELS = [8, 20, 28, 34, 44, 52, 56, 60, 66, 72, 80, 84];
/**
 * However fast the clock runs, a boot lasts at least this long in real time. The host tells a
 * request lost in the reboot from one that crossed the announcement on the wire by the transit
 * time (the client's RESTART_TRANSIT_MS, 50 ms); a real device boots far slower than that, and a
 * time-scaled boot shorter than it would leave a request unanswered until its whole timeout.
 */
const MIN_BOOT_REAL_MS = 100;

export interface SimDeviceOptions {
  clock?: SimClock;
  networks?: SimNetwork[];
  /** Where OTA images are written (a scratch file). */
  otaPath: string;
  /** Base station MAC; the soft AP's is this + 1 in the last octet, as on the chip. */
  stationMac?: string;
  /** Which firmware generation to behave like (default documented). */
  firmware?: FirmwareGeneration;
}

export class SimDevice extends EventEmitter<SimDeviceEvents> implements Chip {
  readonly clock: SimClock;
  readonly networks: SimNetwork[];
  /** Increases at every reboot: answers computed before it are never sent. */
  epoch = 0;
  booting = false;
  /** The firmware hangs (no answers, no events) until unfrozen or reset. */
  frozen = false;
  /** A chip that never answers, whatever is done to it (scenario `unresponsive`). */
  neverAnswers = false;
  heartbeatsFlowing = true;
  readonly firmware: FirmwareGeneration;
  mode: number = MODE.none;
  macs: { sta: string; ap: string };

  private readonly station: SimStation;
  private readonly softAp: SimSoftAp;
  private readonly ota: SimOta;
  private powerSave = 1;
  private txPower = 80;
  private heartbeat: { timer: NodeJS.Timeout; num: number; periodS: number } | null = null;
  private vendorIes = new Map<string, Body>();
  private country = DEFAULT_COUNTRY;
  private readonly baseMac: number[];
  /** The running firmware's version (GetFwVersion, boot announcement); an OTA image replaces it. */
  private version: { name: string; parts: readonly number[] } = SIM_FW_VERSION;

  constructor(options: SimDeviceOptions) {
    super();
    this.clock = options.clock ?? new SimClock();
    this.networks = options.networks ?? defaultNetworks();
    this.firmware = options.firmware ?? 'documented';
    this.baseMac = parseMacOctets(options.stationMac ?? '24:0a:c4:12:34:56')!;
    this.macs = this.factoryMacs();
    this.station = new SimStation(this, this.networks);
    this.softAp = new SimSoftAp(this);
    this.ota = new SimOta(this, options.otaPath, () => this.reset('ota'));
  }

  /** Where OTA images are written. */
  get otaPath(): string {
    return this.ota.path;
  }

  /** Bytes of the last image that passed OTAEnd. */
  get lastImageBytes(): number {
    return this.ota.lastImageBytes;
  }

  readonly handlers: Record<OperationName, Handler> = {
    getMac: (b) => {
      if (!b) return null;
      if (b.mode === MODE.sta) return ok({ mac: macToWire(this.macs.sta) });
      if (b.mode === MODE.ap) return ok({ mac: macToWire(this.macs.ap) });
      return fail();
    },
    setMac: (b) => {
      const raw = b?.mac as Uint8Array | undefined;
      if (!b || !raw || raw.length === 0) return null;
      if (raw.length > 17) return fail();
      const octets = parseMacOctets(Buffer.from(raw).toString('latin1'));
      if (!octets || (b.mode !== MODE.sta && b.mode !== MODE.ap)) return fail();
      if (octets[0] & 1) return fail(); // a multicast address: esp_wifi_set_mac refuses it
      if (b.mode === MODE.sta) this.macs.sta = formatMac(octets);
      else this.macs.ap = formatMac(octets);
      return ok();
    },
    getMode: () => ok({ mode: this.mode }),
    setMode: (b) => {
      if (!b) return null;
      const mode = b.mode as number;
      if (mode < 0 || mode > MODE.apsta) return null; // mode ≥ WIFI_MODE_MAX: no response
      this.applyMode(mode);
      return ok();
    },
    scan: async () => {
      const epoch = this.epoch;
      this.stationOn();
      await this.clock.sleep(SIM_TIMING.scanMs);
      if (epoch !== this.epoch) return null;
      const found = this.networks.filter((n) => n.inRange).sort((a, b) => b.rssi - a.rssi);
      if (found.length === 0) return fail();
      return ok({
        count: found.length,
        entries: found.map((n) => ({
          ssid: n.hidden ? new Uint8Array() : n.ssid.slice(0, 32),
          chnl: n.channel,
          rssi: n.rssi,
          bssid: macToWire(n.bssid),
          sec_prot: n.security,
        })),
      });
    },
    getApConfig: () => this.station.getApConfig(),
    connectAp: (b) => (b ? this.station.connectAp(b) : null),
    disconnectAp: () => this.station.disconnectAp(),
    getSoftApConfig: () => this.softAp.getConfig(),
    setVendorIe: (b) => {
      if (!b) return null;
      const data = b.vendor_ie_data as Body | null;
      const payload = data?.payload as Uint8Array | undefined;
      if (b.enable && (!data || !payload || payload.length === 0)) return null;
      const type = b.type as number;
      const idx = b.idx as number;
      if (type < 0 || type > 4 || (idx !== 0 && idx !== 1)) return fail();
      if (b.enable) {
        if (data!.element_id !== 0xdd || (data!.vendor_oui as Uint8Array).length !== 3) return fail();
        this.vendorIes.set(`${type}/${idx}`, data!);
      } else {
        this.vendorIes.delete(`${type}/${idx}`);
      }
      return ok();
    },
    startSoftAp: (b) => (b ? this.startSoftAp(b) : null),
    softApStations: () => this.softAp.listStations(),
    stopSoftAp: () => {
      if (!this.softAp.active) return fail();
      this.softAp.stop();
      this.mode = this.mode === MODE.apsta ? MODE.sta : MODE.none;
      return ok();
    },
    setPowerSave: (b) => {
      if (!b) return null;
      const accepted = this.current ? [0, 1, 2] : [1, 2]; // NO_PS exists only in the current firmware
      if (!accepted.includes(b.mode as number)) return fail();
      this.powerSave = b.mode as number;
      return ok();
    },
    getPowerSave: () => ok({ mode: this.powerSave }),
    otaBegin: () => this.ota.begin(),
    otaWrite: (b) => this.ota.write(b),
    otaEnd: () => this.ota.end(),
    setMaxTxPower: (b) => {
      const value = (b?.wifi_max_tx_power as number | undefined) ?? 0;
      if (value < TX_POWER_MIN || value > TX_POWER_MAX) return { resp: 5 }; // Out_Of_Range
      this.txPower = TX_POWER_LEVELS.reduce((best, level) =>
        Math.abs(level - value) < Math.abs(best - value) ? level : best,
      );
      return ok();
    },
    getTxPower: () => ok({ wifi_curr_tx_power: this.txPower }),
    configHeartbeat: (b) => {
      if (!b) return null;
      this.stopHeartbeat();
      if (b.enable) {
        const seconds = Math.min(HEARTBEAT_MAX_S, Math.max(HEARTBEAT_MIN_S, b.duration as number));
        const heartbeat = {
          num: 0,
          periodS: seconds,
          timer: this.clock.every(seconds * 1000, () => this.beat(heartbeat)),
        };
        this.heartbeat = heartbeat;
      }
      return ok();
    },
    enableDisable: (b) => {
      if (!b) return null;
      if (b.feature === FEATURE.wifi) {
        if (!b.enable) this.applyMode(MODE.none);
        return ok();
      }
      return b.feature === FEATURE.bluetooth ? ok() : fail();
    },
    getFwVersion: () =>
      ok({
        name: Uint8Array.from(Buffer.from(this.version.name)),
        major1: this.version.parts[0],
        major2: this.version.parts[1],
        minor: this.version.parts[2],
        rev_patch1: this.version.parts[3],
        rev_patch2: this.version.parts[4],
      }),
    setCountryCode: (b) => {
      if (!b) return null;
      const text = Buffer.from((b.country as Uint8Array | undefined) ?? []).toString('latin1');
      if (!/^(?:[A-Z]{2}|01)[ OIX]?$/.test(text)) return fail(ESP_ERR_INVALID_ARG);
      this.country = text.slice(0, 2);
      return ok();
    },
    getCountryCode: () => ok({ country: Uint8Array.from(Buffer.from(this.country, 'latin1')) }),
  };

  /** The current firmware (2024 on) rather than the documented one. */
  get current(): boolean {
    return this.firmware === 'current';
  }

  /** What the PRIV INIT announcement carries: only the current firmware adds its version (FW_DATA). */
  get announcedVersion(): { name: string; parts: number[] } | null {
    return this.current ? { name: this.version.name, parts: [...this.version.parts] } : null;
  }

  stationOn(): void {
    this.applyMode(this.softAp.active ? MODE.apsta : MODE.sta);
  }

  // ── scenario controls ────────────────────────────────────────────────────────────────────────

  /** Power-cycles the device: everything volatile is lost; it boots and announces itself again. */
  reset(reason = 'reset'): void {
    this.epoch += 1;
    const next = this.ota.takeNextVersion();
    if (reason === 'ota' && next) this.version = next;
    this.clock.clear();
    this.ota.abort();
    this.heartbeat = null;
    this.mode = MODE.none;
    this.station.reset();
    this.softAp.stop();
    this.powerSave = 1;
    this.txPower = 80;
    this.vendorIes.clear();
    this.country = DEFAULT_COUNTRY;
    this.macs = this.factoryMacs();
    // A reset line brings a hung firmware back; a chip that never answers stays silent.
    this.frozen = this.neverAnswers;
    this.booting = true;
    this.emit('reset', reason);
    const epoch = this.epoch;
    this.clock.after(Math.max(SIM_TIMING.bootMs, MIN_BOOT_REAL_MS * this.clock.timeScale), () => {
      if (epoch !== this.epoch) return;
      this.booting = false;
      this.emit('boot');
    });
  }

  vanishNetwork(ssid: string | Uint8Array): void {
    for (const network of this.findNetworks(ssid)) {
      network.inRange = false;
      this.station.networkGone(network);
    }
  }

  restoreNetwork(ssid: string | Uint8Array): void {
    for (const network of this.findNetworks(ssid)) network.inRange = true;
  }

  /** The access point now wants another passphrase; a connected station is thrown out. */
  setPassphrase(ssid: string | Uint8Array, passphrase: string): void {
    for (const network of this.findNetworks(ssid)) {
      network.passphrase = passphrase;
      if (this.station.network === network) this.station.kick(DISCONNECT_REASON.authExpire);
    }
  }

  setRssi(ssid: string | Uint8Array, rssi: number): void {
    for (const network of this.findNetworks(ssid)) network.rssi = rssi;
  }

  /** The access point drops the station with this IDF reason. */
  kickStation(reason: number = DISCONNECT_REASON.assocLeave): boolean {
    return this.station.kick(reason);
  }

  /** A phone joins the soft AP; returns its MAC, or null when the AP is off or full. */
  joinSoftAp(station: { mac?: string; rssi?: number } = {}): string | null {
    return this.softAp.join(station);
  }

  leaveSoftAp(mac: string): boolean {
    return this.softAp.leave(mac);
  }

  snapshot() {
    const station = this.station.network;
    return {
      mode: this.mode,
      station: station ? Buffer.from(station.ssid).toString('latin1') : null,
      softAp: this.softAp.snapshot(),
      heartbeat: this.heartbeat ? { periodS: this.heartbeat.periodS, next: this.heartbeat.num } : null,
      powerSave: this.powerSave,
      txPower: this.txPower,
      macs: { ...this.macs },
      otaActive: this.ota.active,
      otaBytes: this.ota.bytes,
      booting: this.booting,
      frozen: this.frozen,
      firmware: this.firmware,
      country: this.country,
      retrying: this.station.retryingSsid,
    };
  }

  close(): void {
    this.clock.clear();
    this.ota.abort();
  }

  // ── internals ────────────────────────────────────────────────────────────────────────────────

  private factoryMacs() {
    const ap = [...this.baseMac];
    ap[5] = (ap[5] + 1) & 0xff;
    return { sta: formatMac(this.baseMac), ap: formatMac(ap) };
  }

  private startSoftAp(b: Body): Reply {
    if (!this.softAp.start(b)) return fail();
    const associated = this.station.network !== null;
    if (this.current) {
      // The current firmware switches to AP-only unless the station is connected: its retries stop.
      if (!associated) this.station.stopRetrying();
      this.mode = associated ? MODE.apsta : MODE.ap;
    } else {
      this.mode = associated || this.mode === MODE.sta || this.mode === MODE.apsta ? MODE.apsta : MODE.ap;
    }
    return ok({ mac: macToWire(this.macs.ap) });
  }

  private applyMode(mode: number): void {
    if ((mode & MODE.sta) === 0) this.station.stationOff();
    if ((mode & MODE.ap) === 0 && this.softAp.active) this.softAp.stop();
    this.mode = mode;
  }

  private beat(heartbeat: { num: number }): void {
    if (!this.heartbeatsFlowing || this.frozen || this.booting) return;
    this.emit('event', 'heartbeat', { hb_num: heartbeat.num });
    heartbeat.num += 1;
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) this.clock.cancel(this.heartbeat.timer);
    this.heartbeat = null;
  }

  private findNetworks(ssid: string | Uint8Array): SimNetwork[] {
    const wanted = ssidBytes(ssid);
    return this.networks.filter((n) => sameBytes(n.ssid, wanted));
  }
}
