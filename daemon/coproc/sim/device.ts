/**
 * The virtual coprocessor: ESP-Hosted-FG's behaviour on a simulated radio, in either generation —
 * the documented (seed-era) firmware summed up in docs/architecture.md, "Coprocessor link", or the
 * current one (2024 on): ConnectAP answered at once with the outcome as an event (305 or 303 with
 * the reason in its own field), its own retries of the stored network, uid echoed, version and
 * country code, phones joining the soft AP announced (306). It takes decoded requests and
 * answers them, or — in the cases where the firmware sends nothing — answers null. It emits the
 * firmware's events and reboots like it.
 * Framing and bytes are the link's business (sim/link.ts).
 */
import { EventEmitter } from 'node:events';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import type { Body } from '../codec.js';
import type { EventName, FirmwareGeneration, OperationName } from '../operations.js';
import { formatMac, macToWire, parseMacOctets } from '../mac.js';
import { PROJECT_OFFSET, readFirmwareImage, TEXT_BYTES } from '../firmware-image.js';
import { SimClock } from './clock.js';
import { defaultNetworks, SEC, sameBytes, ssidBytes, type SimNetwork } from './world.js';

export type Reply = Body | null;
type Handler = (body: Body | null) => Reply | Promise<Reply>;

/** Device-time durations of what the radio does (milliseconds). */
export const SIM_TIMING = {
  bootMs: 300,
  scanMs: 1200,
  connectMs: 800,
  /** Three attempts (each a scan) before the firmware gives up on a network it cannot find. */
  notFoundMs: 3 * 1200,
  /** Handshake timeouts before a wrong passphrase is given up. */
  authFailMs: 3 * 1000,
  beaconTimeoutMs: 3000,
  otaEraseMs: 300,
  otaRebootMs: 5000,
  /** Current firmware: the pause before it tries the stored network again after a disconnect. */
  retryMs: 2000,
} as const;

/** What the current firmware's build announces (esp_fw_version.h of Espressif's snapshot). */
export const SIM_FW_VERSION = { name: 'FG', parts: [1, 0, 0, 0, 0] } as const;
/** esp_wifi_get_country_code before anyone set one: "01", the world-safe regulatory domain. */
const DEFAULT_COUNTRY = '01';
/** ESP_ERR_INVALID_ARG, which the current firmware returns as resp for a bad country code. */
const ESP_ERR_INVALID_ARG = 0x102;
const FEATURE = { wifi: 1, bluetooth: 2 } as const;

const MODE = { none: 0, sta: 1, ap: 2, apsta: 3 } as const;
const HEARTBEAT_MIN_S = 10;
const HEARTBEAT_MAX_S = 3600;
const TX_POWER_MIN = 8;
const TX_POWER_MAX = 84;
/** The levels the driver rounds to, in 0.25 dBm (ESP-Hosted's control API documentation). */
const TX_POWER_LEVELS = [8, 20, 28, 34, 44, 52, 56, 60, 66, 72, 80, 84];
const SOFTAP_MAX_STATIONS = 10;
const OTA_PARTITION_BYTES = 0x200000;
const ESP_IMAGE_MAGIC = 0xe9;
const APP_DESC_END = PROJECT_OFFSET + TEXT_BYTES;
/**
 * However fast the clock runs, a boot lasts at least this long in real time. The host tells a
 * request lost in the reboot from one that crossed the announcement on the wire by the transit
 * time (the client's RESTART_TRANSIT_MS, 50 ms); a real device boots far slower than that, and a
 * time-scaled boot shorter than it would leave a request unanswered until its whole timeout.
 */
const MIN_BOOT_REAL_MS = 100;

export const DISCONNECT_REASON = {
  authExpire: 2,
  assocLeave: 8,
  handshakeTimeout: 15,
  beaconTimeout: 200,
  noApFound: 201,
  authFail: 202,
} as const;

interface ConnectTarget {
  ssid: Uint8Array;
  pwd: string;
  bssid: number[] | null;
  wpa3: boolean;
}

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

export interface SoftApStation {
  mac: string;
  rssi: number;
  /** The association id the AP gave it (IDF: the lowest free one from 1). */
  aid: number;
}

/**
 * What changed on the radio, for whoever plays the driver's network interfaces around the
 * simulator (the virtual home sets veth carriers from these). The host never sees them.
 */
export type RadioChange =
  | { radio: 'station'; associated: true; ssid: string; bssid: string; mac: string }
  | { radio: 'station'; associated: false; ssid: string }
  | { radio: 'softap'; active: true; ssid: string; mac: string }
  | { radio: 'softap'; active: false }
  | { radio: 'softap_station'; joined: boolean; mac: string };

interface SoftAp {
  ssid: Uint8Array;
  pwd: Uint8Array;
  channel: number;
  security: number;
  maxConn: number;
  hidden: boolean;
  bw: number;
}

export interface SimDeviceEvents {
  /** An event for the host: the link encodes it under ctrlEvnt. */
  event: [EventName, Body];
  /** The device finished booting (the link announces it: PRIV INIT, then Event_DevInit). */
  boot: [];
  /** The device went down for a reboot: the link forgets half-received requests. */
  reset: [reason: string];
  /** A request reached the firmware's handler (for tests that act at that moment). */
  request: [OperationName];
  /** The station associated or left; the soft AP started or stopped; a phone joined or left it. */
  radio: [RadioChange];
}

export class SimDevice extends EventEmitter<SimDeviceEvents> {
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

  private mode: number = MODE.none;
  private station: SimNetwork | null = null;
  private connecting = false;
  private softAp: SoftAp | null = null;
  private stations: SoftApStation[] = [];
  private powerSave = 1;
  private txPower = 80;
  private heartbeat: { timer: NodeJS.Timeout; num: number; periodS: number } | null = null;
  private beaconLoss: NodeJS.Timeout | null = null;
  private ota: { fd: number; bytes: number } | null = null;
  private vendorIes = new Map<string, Body>();
  private country = DEFAULT_COUNTRY;
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
  private readonly baseMac: number[];
  private macs: { sta: string; ap: string };
  private nextStation = 1;
  readonly otaPath: string;
  /** Bytes of the last image that passed OTAEnd. */
  lastImageBytes = 0;
  /** The running firmware's version (GetFwVersion, boot announcement); an OTA image replaces it. */
  private version: { name: string; parts: readonly number[] } = SIM_FW_VERSION;
  private nextVersion: { name: string; parts: number[] } | null = null;

  constructor(options: SimDeviceOptions) {
    super();
    this.clock = options.clock ?? new SimClock();
    this.networks = options.networks ?? defaultNetworks();
    this.otaPath = options.otaPath;
    this.firmware = options.firmware ?? 'documented';
    this.baseMac = parseMacOctets(options.stationMac ?? '24:0a:c4:12:34:56')!;
    this.macs = this.factoryMacs();
  }

  /** The firmware's request handlers, one per operation of the table. */
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
      this.applyMode(this.softAp ? MODE.apsta : MODE.sta);
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
    getApConfig: () => {
      const n = this.station;
      if (!n) return { resp: 1 }; // Not_Connected
      // The firmware sends strlen + 1 bytes: the SSID with its trailing NUL.
      return ok({
        ssid: Buffer.concat([n.ssid, Buffer.from([0])]),
        bssid: macToWire(n.bssid),
        rssi: n.rssi,
        chnl: n.channel,
        sec_prot: n.security,
      });
    },
    connectAp: (b) => (b ? (this.current ? this.connectAsync(b) : this.connect(b)) : null),
    disconnectAp: () => {
      if (!this.station) return fail();
      // The current firmware reports its own disconnect, then tries the stored network again.
      this.configValid = false;
      this.dropStation(this.current ? DISCONNECT_REASON.assocLeave : null);
      return ok();
    },
    getSoftApConfig: () => {
      const ap = this.softAp;
      if (!ap) return fail();
      return ok({
        ssid: ap.ssid,
        pwd: ap.security === SEC.open ? new Uint8Array() : ap.pwd,
        chnl: ap.channel,
        sec_prot: ap.security,
        max_conn: ap.maxConn,
        ssid_hidden: ap.hidden,
        bw: ap.bw,
      });
    },
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
    softApStations: () => {
      if (!this.softAp || (this.mode & MODE.ap) === 0) return fail();
      return ok({
        num: this.stations.length,
        stations: this.stations.map((s) => ({ mac: macToWire(s.mac), rssi: s.rssi })),
      });
    },
    stopSoftAp: () => {
      if (!this.softAp) return fail();
      this.setSoftAp(null);
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
    otaBegin: async () => {
      const epoch = this.epoch;
      this.abortOta();
      await this.clock.sleep(SIM_TIMING.otaEraseMs);
      if (epoch !== this.epoch) return null;
      try {
        this.ota = { fd: openSync(this.otaPath, 'w'), bytes: 0 };
      } catch {
        return fail();
      }
      return ok();
    },
    otaWrite: (b) => {
      const data = (b?.ota_data as Uint8Array | undefined) ?? new Uint8Array();
      if (!this.ota) return fail();
      if (this.ota.bytes + data.length > OTA_PARTITION_BYTES) return fail();
      writeSync(this.ota.fd, data);
      this.ota.bytes += data.length;
      return ok();
    },
    otaEnd: () => {
      const ota = this.ota;
      if (!ota) return fail();
      this.ota = null;
      const head = Buffer.alloc(APP_DESC_END);
      closeSync(ota.fd);
      const fd = openSync(this.otaPath, 'r');
      const read = readSync(fd, head, 0, head.length, 0);
      closeSync(fd);
      if (read === 0 || head[0] !== ESP_IMAGE_MAGIC) return fail(); // esp_ota_end: image does not verify
      this.lastImageBytes = ota.bytes;
      // The new image's version is what the device reports after the reboot (current firmware).
      this.nextVersion = versionOfImage(head.subarray(0, read));
      this.clock.after(SIM_TIMING.otaRebootMs, () => this.reset('ota'));
      return ok();
    },
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

  // ── scenario controls ────────────────────────────────────────────────────────────────────────

  /** Power-cycles the device: everything volatile is lost; it boots and announces itself again. */
  reset(reason = 'reset'): void {
    this.epoch += 1;
    if (reason === 'ota' && this.nextVersion) this.version = this.nextVersion;
    this.nextVersion = null;
    this.clock.clear();
    this.abortOta();
    this.heartbeat = null;
    this.beaconLoss = null;
    this.mode = MODE.none;
    this.associate(null);
    this.connecting = false;
    this.setSoftAp(null);
    this.powerSave = 1;
    this.txPower = 80;
    this.vendorIes.clear();
    this.country = DEFAULT_COUNTRY;
    this.pending = null;
    this.retrying = false;
    this.configValid = false;
    this.trying = false;
    this.retry = null;
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
      if (this.station === network && !this.beaconLoss) {
        this.beaconLoss = this.clock.after(SIM_TIMING.beaconTimeoutMs, () => {
          this.beaconLoss = null;
          if (this.station === network && !network.inRange) this.dropStation(DISCONNECT_REASON.beaconTimeout);
        });
      }
    }
  }

  restoreNetwork(ssid: string | Uint8Array): void {
    for (const network of this.findNetworks(ssid)) network.inRange = true;
  }

  /** The access point now wants another passphrase; a connected station is thrown out. */
  setPassphrase(ssid: string | Uint8Array, passphrase: string): void {
    for (const network of this.findNetworks(ssid)) {
      network.passphrase = passphrase;
      if (this.station === network) this.dropStation(DISCONNECT_REASON.authExpire);
    }
  }

  setRssi(ssid: string | Uint8Array, rssi: number): void {
    for (const network of this.findNetworks(ssid)) network.rssi = rssi;
  }

  /** The access point drops the station with this IDF reason. */
  kickStation(reason: number = DISCONNECT_REASON.assocLeave): boolean {
    if (!this.station) return false;
    this.dropStation(reason);
    return true;
  }

  /** A phone joins the soft AP; returns its MAC, or null when the AP is off or full. */
  joinSoftAp(station: { mac?: string; rssi?: number } = {}): string | null {
    if (!this.softAp || this.stations.length >= this.softAp.maxConn) return null;
    const mac = (station.mac ?? formatMac([0x02, 0x11, 0x22, 0x33, 0x44, this.nextStation++ & 0xff])).toLowerCase();
    const rejoin = this.stations.some((s) => s.mac === mac);
    this.stations = this.stations.filter((s) => s.mac !== mac);
    let aid = 1;
    while (this.stations.some((s) => s.aid === aid)) aid += 1;
    this.stations.push({ mac, rssi: station.rssi ?? -55, aid });
    if (!rejoin) this.emit('radio', { radio: 'softap_station', joined: true, mac });
    // slave_control.c ctrl_ntfy_StationConnectedToESPSoftAP: resp 0, the MAC as text, the aid.
    if (this.current) this.emit('event', 'softApStationConnected', { mac: macToWire(mac), aid });
    return mac;
  }

  leaveSoftAp(mac: string): boolean {
    const leaving = this.stations.find((s) => s.mac === mac.toLowerCase());
    if (!leaving || !this.softAp) return false;
    this.stations = this.stations.filter((s) => s !== leaving);
    this.emit('radio', { radio: 'softap_station', joined: false, mac: leaving.mac });
    // The current firmware adds the aid and (IDF ≥ 5.1.1) the reason (ctrl_ntfy_StationDisconnectFromESPSoftAP).
    this.emit(
      'event',
      'softApStationDisconnected',
      this.current
        ? { mac: macToWire(leaving.mac), aid: leaving.aid, reason: DISCONNECT_REASON.assocLeave }
        : { mac: macToWire(leaving.mac) },
    );
    return true;
  }

  snapshot() {
    return {
      mode: this.mode,
      station: this.station ? Buffer.from(this.station.ssid).toString('latin1') : null,
      softAp: this.softAp
        ? { ssid: Buffer.from(this.softAp.ssid).toString('utf8'), stations: this.stations.map((s) => ({ ...s })) }
        : null,
      heartbeat: this.heartbeat ? { periodS: this.heartbeat.periodS, next: this.heartbeat.num } : null,
      powerSave: this.powerSave,
      txPower: this.txPower,
      macs: { ...this.macs },
      otaActive: this.ota !== null,
      otaBytes: this.ota?.bytes ?? 0,
      booting: this.booting,
      frozen: this.frozen,
      firmware: this.firmware,
      country: this.country,
      retrying: this.retrying && this.stored ? Buffer.from(this.stored.ssid).toString('latin1') : null,
    };
  }

  close(): void {
    this.clock.clear();
    this.abortOta();
  }

  // ── internals ────────────────────────────────────────────────────────────────────────────────

  private factoryMacs() {
    const ap = [...this.baseMac];
    ap[5] = (ap[5] + 1) & 0xff;
    return { sta: formatMac(this.baseMac), ap: formatMac(ap) };
  }

  private async connect(b: Body): Promise<Reply> {
    const epoch = this.epoch;
    const ssid = (b.ssid as Uint8Array).slice(0, 32);
    const pwd = Buffer.from((b.pwd as Uint8Array).slice(0, 64)).toString('latin1');
    const bssidText = Buffer.from(b.bssid as Uint8Array).toString('latin1');
    const bssid = bssidText ? parseMacOctets(bssidText) : null;
    if (this.station) this.dropStation(null); // host-triggered: no event
    this.applyMode(this.softAp ? MODE.apsta : MODE.sta);
    if (bssidText && !bssid) return fail();
    this.connecting = true;
    try {
      await this.clock.sleep(SIM_TIMING.connectMs);
      if (epoch !== this.epoch) return null;
      const target = this.networks.find(
        (n) => n.inRange && sameBytes(n.ssid, ssid) && (!bssid || n.bssid === formatMac(bssid)),
      );
      if (!target) {
        await this.clock.sleep(SIM_TIMING.notFoundMs);
        return epoch === this.epoch ? fail() : null;
      }
      const wpa3Refused = target.security === SEC.wpa3_psk && !b.is_wpa3_supported;
      const passes = target.security === SEC.open || (pwd === target.passphrase && !wpa3Refused);
      if (!passes) {
        await this.clock.sleep(SIM_TIMING.authFailMs);
        return epoch === this.epoch ? fail() : null;
      }
      this.associate(target);
      return ok({ mac: macToWire(this.macs.sta) });
    } finally {
      if (epoch === this.epoch) this.connecting = false;
    }
  }

  /**
   * Current firmware: the answer comes at once; the outcome follows as Event_StationConnectedToAP
   * or Event_StationDisconnectFromAP. A configuration other than the one held waits for the next
   * connected or disconnected event, so the try that runs first is still the previous network's.
   * Connected and valid, the firmware only repeats the last connected event (the network it is on).
   */
  private connectAsync(b: Body): Reply {
    const bssidText = Buffer.from(b.bssid as Uint8Array).toString('latin1');
    const bssid = bssidText ? parseMacOctets(bssidText) : null;
    if (bssidText && !bssid) return fail();
    const target: ConnectTarget = {
      ssid: (b.ssid as Uint8Array).slice(0, 32),
      pwd: Buffer.from((b.pwd as Uint8Array).slice(0, 64)).toString('latin1'),
      bssid,
      wpa3: Boolean(b.is_wpa3_supported),
    };
    const modeChanged = (this.mode & MODE.sta) === 0;
    if (modeChanged) this.applyMode(this.softAp ? MODE.apsta : MODE.sta);
    this.stored ??= target; // nothing provisioned: taken at once
    if (!sameTarget(target, this.stored)) this.pending = target;
    if (!modeChanged && this.station && this.configValid) {
      this.emitConnected(this.station);
      return ok({ mac: macToWire(this.macs.sta) });
    }
    if (modeChanged || !this.configValid) {
      this.retrying = true;
      if (this.station) this.dropStation(DISCONNECT_REASON.assocLeave);
      else this.tryNow();
    }
    return ok({ mac: macToWire(this.macs.sta) });
  }

  private tryNow(): void {
    this.clock.cancel(this.retry);
    this.retry = null;
    if (!this.trying) void this.keepTrying();
  }

  /** The firmware's station task: try the held network until associated or the station stops. */
  private async keepTrying(): Promise<void> {
    const epoch = this.epoch;
    this.trying = true;
    try {
      while (this.stillTrying(epoch) && this.stored) {
        const target = this.stored;
        const outcome = await this.tryOnce(target);
        if (!this.stillTrying(epoch)) {
          if (epoch === this.epoch && outcome === 'associated') this.associate(null);
          return;
        }
        if (outcome === 'associated') {
          if (!this.takePending()) {
            this.configValid = true;
            this.emitConnected(this.station!);
            return;
          }
          // Connected on the old configuration with a new one waiting: leave, then try that.
          this.associate(null);
          this.emitDisconnect(DISCONNECT_REASON.assocLeave, target.ssid, null);
          continue;
        }
        this.emitDisconnect(outcome, target.ssid, null);
        this.takePending();
        await this.clock.sleep(SIM_TIMING.retryMs);
      }
    } finally {
      if (epoch === this.epoch) this.trying = false;
    }
  }

  private stillTrying(epoch: number): boolean {
    return epoch === this.epoch && this.retrying && (this.mode & MODE.sta) !== 0;
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
    const epoch = this.epoch;
    await this.clock.sleep(SIM_TIMING.connectMs);
    if (epoch !== this.epoch) return DISCONNECT_REASON.assocLeave;
    const network = this.networks.find(
      (n) => n.inRange && sameBytes(n.ssid, target.ssid) && (!target.bssid || n.bssid === formatMac(target.bssid)),
    );
    if (!network) {
      await this.clock.sleep(SIM_TIMING.notFoundMs);
      return DISCONNECT_REASON.noApFound;
    }
    const wpa3Refused = network.security === SEC.wpa3_psk && !target.wpa3;
    if (network.security !== SEC.open && (target.pwd !== network.passphrase || wpa3Refused)) {
      await this.clock.sleep(SIM_TIMING.authFailMs);
      return DISCONNECT_REASON.handshakeTimeout;
    }
    if (epoch !== this.epoch) return DISCONNECT_REASON.assocLeave;
    this.associate(network);
    return 'associated';
  }

  private emitConnected(network: SimNetwork): void {
    this.emit('event', 'stationConnected', {
      ssid: network.ssid.slice(),
      ssid_len: network.ssid.length,
      bssid: macToWire(network.bssid),
      channel: network.channel,
      authmode: network.security,
      aid: 1,
    });
  }

  /** The current firmware's station stops retrying (the station interface went away). */
  private stopRetrying(): void {
    this.retrying = false;
    this.clock.cancel(this.retry);
    this.retry = null;
  }

  private emitDisconnect(reason: number, ssid: Uint8Array, network: SimNetwork | null): void {
    if (!this.current) {
      this.emit('event', 'stationDisconnected', { resp: reason });
      return;
    }
    this.emit('event', 'stationDisconnected', {
      resp: 0,
      ssid: ssid.slice(),
      ssid_len: ssid.length,
      bssid: network ? macToWire(network.bssid) : undefined,
      reason,
      rssi: network?.rssi,
    });
  }

  private startSoftAp(b: Body): Reply {
    const ssid = b.ssid as Uint8Array;
    const pwd = b.pwd as Uint8Array;
    const security = b.sec_prot as number;
    if (ssid.length === 0 || ssid.length > 32) return fail();
    if (security !== SEC.open && (pwd.length < 8 || pwd.length > 64)) return fail();
    if (![SEC.open, SEC.wpa_psk, SEC.wpa2_psk, SEC.wpa_wpa2_psk].includes(security as 0)) return fail();
    const channel = b.chnl as number;
    if (channel < 1 || channel > 13) return fail();
    const maxConn = (b.max_conn as number) || 4;
    if (maxConn < 1 || maxConn > SOFTAP_MAX_STATIONS) return fail();
    const bw = b.bw as number;
    if (bw !== 1 && bw !== 2) return fail();
    this.setSoftAp({
      ssid: ssid.slice(),
      pwd: pwd.slice(),
      channel,
      security,
      maxConn,
      hidden: Boolean(b.ssid_hidden),
      bw,
    });
    if (this.current) {
      // The current firmware switches to AP-only unless the station is connected: its retries stop.
      if (!this.station) this.stopRetrying();
      this.mode = this.station ? MODE.apsta : MODE.ap;
    } else {
      this.mode = this.station || this.mode === MODE.sta || this.mode === MODE.apsta ? MODE.apsta : MODE.ap;
    }
    return ok({ mac: macToWire(this.macs.ap) });
  }

  private applyMode(mode: number): void {
    if ((mode & MODE.sta) === 0) {
      // SetWifiMode away from the station: no more retries, and a waiting configuration is dropped.
      this.stopRetrying();
      this.pending = null;
      this.configValid = false;
    }
    if ((mode & MODE.sta) === 0 && this.station) this.dropStation(DISCONNECT_REASON.assocLeave);
    if ((mode & MODE.ap) === 0 && this.softAp) this.setSoftAp(null);
    this.mode = mode;
  }

  /** Leaves the access point; `reason` null when the host asked for it (the firmware stays quiet). */
  private dropStation(reason: number | null): void {
    const left = this.station;
    this.associate(null);
    this.clock.cancel(this.beaconLoss);
    this.beaconLoss = null;
    if (reason !== null && !this.connecting) this.emitDisconnect(reason, left?.ssid ?? new Uint8Array(), left);
    if (!this.current) return;
    this.takePending();
    if (this.retrying && !this.trying && !this.retry) {
      this.retry = this.clock.after(SIM_TIMING.retryMs, () => {
        this.retry = null;
        if (!this.trying) void this.keepTrying();
      });
    }
  }

  private associate(network: SimNetwork | null): void {
    const before = this.station;
    this.station = network;
    if (before === network) return;
    if (before)
      this.emit('radio', { radio: 'station', associated: false, ssid: Buffer.from(before.ssid).toString('latin1') });
    if (network)
      this.emit('radio', {
        radio: 'station',
        associated: true,
        ssid: Buffer.from(network.ssid).toString('latin1'),
        bssid: network.bssid,
        mac: this.macs.sta,
      });
  }

  /** A (re)started or stopped soft AP drops its phones without telling the host, as the firmware does. */
  private setSoftAp(ap: SoftAp | null): void {
    const wasActive = this.softAp !== null;
    for (const station of this.stations)
      this.emit('radio', { radio: 'softap_station', joined: false, mac: station.mac });
    this.stations = [];
    this.softAp = ap;
    if (ap)
      this.emit('radio', {
        radio: 'softap',
        active: true,
        ssid: Buffer.from(ap.ssid).toString('utf8'),
        mac: this.macs.ap,
      });
    else if (wasActive) this.emit('radio', { radio: 'softap', active: false });
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

  private abortOta(): void {
    if (!this.ota) return;
    try {
      closeSync(this.ota.fd);
    } catch {
      /* already closed */
    }
    this.ota = null;
  }

  private findNetworks(ssid: string | Uint8Array): SimNetwork[] {
    const wanted = ssidBytes(ssid);
    return this.networks.filter((n) => sameBytes(n.ssid, wanted));
  }
}

function sameTarget(a: ConnectTarget, b: ConnectTarget): boolean {
  const bssid = (t: ConnectTarget) => (t.bssid ? formatMac(t.bssid) : null);
  return sameBytes(a.ssid, b.ssid) && a.pwd === b.pwd && bssid(a) === bssid(b) && a.wpa3 === b.wpa3;
}

function ok(fields: Body = {}): Body {
  return { resp: 0, ...fields };
}

function fail(code = -1): Body {
  return { resp: code };
}

/** "FG-1.2.0.0.0" in the image's description → the parts GetFwVersion answers; null for another form. */
function versionOfImage(head: Uint8Array): { name: string; parts: number[] } | null {
  const match = /^([A-Za-z]{1,8})-(\d+)\.(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(readFirmwareImage(head)?.version ?? '');
  return match ? { name: match[1], parts: match.slice(2).map(Number) } : null;
}
