/**
 * The simulated chip's soft AP: its configuration as StartSoftAP checks it, and the phones that
 * join and leave it (announced to the host by the current firmware as events 306 and 304).
 */
import type { Body } from '../codec.js';
import { formatMac, macToWire } from '../mac.js';
import { DISCONNECT_REASON, fail, MODE, ok, type Chip, type Reply } from './chip.js';
import { SEC } from './world.js';

const SOFTAP_MAX_STATIONS = 10;

export interface SoftApStation {
  mac: string;
  rssi: number;
  /** The association id the AP gave it (IDF: the lowest free one from 1). */
  aid: number;
}

interface SoftApConfig {
  ssid: Uint8Array;
  pwd: Uint8Array;
  channel: number;
  security: number;
  maxConn: number;
  hidden: boolean;
  bw: number;
}

export class SimSoftAp {
  private config: SoftApConfig | null = null;
  private stations: SoftApStation[] = [];
  private nextStation = 1;

  constructor(private readonly chip: Chip) {}

  get active(): boolean {
    return this.config !== null;
  }

  /** StartSoftAP's checks; true when the AP (re)started with this configuration. */
  start(b: Body): boolean {
    const ssid = b.ssid as Uint8Array;
    const pwd = b.pwd as Uint8Array;
    const security = b.sec_prot as number;
    if (ssid.length === 0 || ssid.length > 32) return false;
    if (security !== SEC.open && (pwd.length < 8 || pwd.length > 64)) return false;
    if (![SEC.open, SEC.wpa_psk, SEC.wpa2_psk, SEC.wpa_wpa2_psk].includes(security as 0)) return false;
    const channel = b.chnl as number;
    if (channel < 1 || channel > 13) return false;
    const maxConn = (b.max_conn as number) || 4;
    if (maxConn < 1 || maxConn > SOFTAP_MAX_STATIONS) return false;
    const bw = b.bw as number;
    if (bw !== 1 && bw !== 2) return false;
    this.set({ ssid: ssid.slice(), pwd: pwd.slice(), channel, security, maxConn, hidden: Boolean(b.ssid_hidden), bw });
    return true;
  }

  getConfig(): Reply {
    const ap = this.config;
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
  }

  listStations(): Reply {
    if (!this.config || (this.chip.mode & MODE.ap) === 0) return fail();
    return ok({
      num: this.stations.length,
      stations: this.stations.map((s) => ({ mac: macToWire(s.mac), rssi: s.rssi })),
    });
  }

  stop(): void {
    this.set(null);
  }

  /** A phone joins the soft AP; returns its MAC, or null when the AP is off or full. */
  join(station: { mac?: string; rssi?: number } = {}): string | null {
    if (!this.config || this.stations.length >= this.config.maxConn) return null;
    const mac = (station.mac ?? formatMac([0x02, 0x11, 0x22, 0x33, 0x44, this.nextStation++ & 0xff])).toLowerCase();
    const rejoin = this.stations.some((s) => s.mac === mac);
    this.stations = this.stations.filter((s) => s.mac !== mac);
    let aid = 1;
    while (this.stations.some((s) => s.aid === aid)) aid += 1;
    this.stations.push({ mac, rssi: station.rssi ?? -55, aid });
    if (!rejoin) this.chip.emit('radio', { radio: 'softap_station', joined: true, mac });
    // slave_control.c ctrl_ntfy_StationConnectedToESPSoftAP: resp 0, the MAC as text, the aid.
    if (this.chip.current) this.chip.emit('event', 'softApStationConnected', { mac: macToWire(mac), aid });
    return mac;
  }

  leave(mac: string): boolean {
    const leaving = this.stations.find((s) => s.mac === mac.toLowerCase());
    if (!leaving || !this.config) return false;
    this.stations = this.stations.filter((s) => s !== leaving);
    this.chip.emit('radio', { radio: 'softap_station', joined: false, mac: leaving.mac });
    // The current firmware adds the aid and (IDF ≥ 5.1.1) the reason (ctrl_ntfy_StationDisconnectFromESPSoftAP).
    this.chip.emit(
      'event',
      'softApStationDisconnected',
      this.chip.current
        ? { mac: macToWire(leaving.mac), aid: leaving.aid, reason: DISCONNECT_REASON.assocLeave }
        : { mac: macToWire(leaving.mac) },
    );
    return true;
  }

  snapshot(): { ssid: string; stations: SoftApStation[] } | null {
    return this.config
      ? { ssid: Buffer.from(this.config.ssid).toString('utf8'), stations: this.stations.map((s) => ({ ...s })) }
      : null;
  }

  /** A (re)started or stopped soft AP drops its phones without telling the host, as the firmware does. */
  private set(ap: SoftApConfig | null): void {
    const wasActive = this.config !== null;
    for (const station of this.stations)
      this.chip.emit('radio', { radio: 'softap_station', joined: false, mac: station.mac });
    this.stations = [];
    this.config = ap;
    if (ap)
      this.chip.emit('radio', {
        radio: 'softap',
        active: true,
        ssid: Buffer.from(ap.ssid).toString('utf8'),
        mac: this.chip.macs.ap,
      });
    else if (wasActive) this.chip.emit('radio', { radio: 'softap', active: false });
  }
}
