/**
 * TEST DOUBLE of CoprocClientApi for the connectivity subsystem's unit tests: faster and more
 * controllable than the simulator. It answers the way the seed-era firmware does
 * (docs/architecture.md, "Coprocessor link") — ConnectAP only 0 or −1, GetAPConfig "not connected", StopSoftAP
 * −1 when not started, scan shows hidden networks with empty names — from a small model of the
 * air that tests change (an access point vanishes or returns, a phone joins the AP).
 */
import { EventEmitter } from 'node:events';
import type {
  BootAnnouncement,
  CoprocClientApi,
  CoprocEvents,
  ConnectRequest,
  LinkCounters,
  PowerSaveName,
  ScanEntry,
  SoftApConfig,
  SoftApStationInfo,
  StationConfig,
  VendorIe,
  WifiInterface,
  WifiModeName,
} from '../../daemon/coproc/api.js';
import { CoprocError, emptyLinkCounters } from '../../daemon/coproc/api.js';

export interface AirNetwork {
  ssid: Uint8Array;
  password: string;
  channel: number;
  rssi: number;
  security: ScanEntry['security'];
  hidden?: boolean;
  bssid?: string;
}

export class CoprocTestDouble extends EventEmitter<CoprocEvents> implements CoprocClientApi {
  linkUp = true;
  lastBoot: BootAnnouncement | null = null;
  /** Milliseconds every operation takes (a ConnectAP takes twice as long). */
  latencyMs = 1;
  /** When false the device answers nothing: every operation times out. */
  answering = true;
  readonly air: AirNetwork[] = [];
  readonly calls: string[] = [];
  mode: WifiModeName = 'station';
  station: AirNetwork | null = null;
  softAp: SoftApConfig | null = null;
  phones: SoftApStationInfo[] = [];
  txQuarterDbm = 80;
  powerSave: PowerSaveName = 'min_modem';
  heartbeat: { enabled: boolean; periodS: number } = { enabled: false, periodS: 0 };
  readonly mac = '24:0a:c4:12:ab:cd';

  counters(): LinkCounters {
    return emptyLinkCounters();
  }

  /** Why requests were abandoned (this double answers every request after its delay; none is left to fail). */
  readonly abandoned: string[] = [];

  abandonRequests(reason: string): void {
    this.abandoned.push(reason);
  }

  private async op<T>(name: string, run: () => T, slow = 1): Promise<T> {
    this.calls.push(name);
    await new Promise((resolve) => setTimeout(resolve, this.latencyMs * slow));
    if (!this.linkUp) throw new CoprocError(name, 'link_down', null, 'link down');
    if (!this.answering) throw new CoprocError(name, 'timeout', null, 'no response');
    return run();
  }

  private fail(name: string, code = -1): never {
    throw new CoprocError(name, 'device', code, `device answered ${code}`);
  }

  getMac(iface: WifiInterface) {
    return this.op('getMac', () => (iface === 'station' ? this.mac : '24:0a:c4:12:ab:ce'));
  }
  setMac() {
    return this.op('setMac', () => undefined);
  }
  getMode() {
    return this.op('getMode', () => this.mode);
  }
  setMode(mode: WifiModeName) {
    return this.op('setMode', () => {
      this.mode = mode;
    });
  }

  scan() {
    return this.op('scan', () => {
      this.mode = this.softAp ? 'apsta' : 'station';
      if (this.air.length === 0) this.fail('scan');
      return this.air.map((net, i): ScanEntry => {
        const ssidBytes = net.hidden ? new Uint8Array(0) : net.ssid;
        return {
          ssid: Buffer.from(ssidBytes).toString('utf8'),
          ssidBytes,
          bssid: net.bssid ?? `aa:bb:cc:00:00:${String(i).padStart(2, '0')}`,
          rssi: net.rssi,
          channel: net.channel,
          security: net.security,
        };
      });
    });
  }

  getApConfig() {
    return this.op('getApConfig', (): StationConfig | null => {
      const net = this.station;
      if (!net) return null;
      return {
        ssid: Buffer.from(net.ssid).toString('utf8'),
        ssidBytes: net.ssid,
        bssid: net.bssid ?? 'aa:bb:cc:00:00:00',
        rssi: net.rssi,
        channel: net.channel,
        security: net.security,
      };
    });
  }

  connectAp(request: ConnectRequest) {
    return this.op(
      'connectAp',
      () => {
        this.station = null;
        this.mode = this.softAp ? 'apsta' : 'station';
        const wanted = typeof request.ssid === 'string' ? new TextEncoder().encode(request.ssid) : request.ssid;
        const net = this.air.find((n) => Buffer.from(n.ssid).equals(Buffer.from(wanted)));
        if (!net || (net.security !== 'open' && net.password !== request.password)) this.fail('connectAp');
        this.station = net;
        if (this.softAp) this.softAp = { ...this.softAp, channel: net.channel };
        return { mac: this.mac };
      },
      2,
    );
  }

  disconnectAp() {
    return this.op('disconnectAp', () => {
      if (!this.station) this.fail('disconnectAp');
      this.station = null;
    });
  }
  getSoftApConfig() {
    return this.op('getSoftApConfig', () => {
      if (!this.softAp) this.fail('getSoftApConfig');
      return this.softAp;
    });
  }
  setVendorIe(_ie: VendorIe) {
    return this.op('setVendorIe', () => undefined);
  }

  startSoftAp(config: SoftApConfig) {
    return this.op('startSoftAp', () => {
      if (config.ssid.length > 32 || (config.security !== 'open' && config.password.length < 8))
        this.fail('startSoftAp');
      this.softAp = { ...config };
      this.mode = 'apsta';
      return { mac: '24:0a:c4:12:ab:ce' };
    });
  }

  softApStations() {
    return this.op('softApStations', () => {
      if (!this.softAp) this.fail('softApStations');
      return [...this.phones];
    });
  }
  stopSoftAp() {
    return this.op('stopSoftAp', () => {
      if (!this.softAp) this.fail('stopSoftAp');
      this.softAp = null;
      this.phones = [];
      this.mode = 'station';
    });
  }
  setPowerSave(mode: PowerSaveName) {
    return this.op('setPowerSave', () => {
      if (mode === 'none') this.fail('setPowerSave');
      this.powerSave = mode;
    });
  }
  getPowerSave() {
    return this.op('getPowerSave', () => this.powerSave);
  }
  otaBegin() {
    return this.op('otaBegin', () => undefined);
  }
  otaWrite(_chunk: Uint8Array) {
    return this.op('otaWrite', () => undefined);
  }
  otaEnd() {
    return this.op('otaEnd', () => undefined);
  }
  setMaxTxPower(dbm: number) {
    return this.op('setMaxTxPower', () => {
      const q = Math.round(dbm * 4);
      if (q < 8 || q > 84) this.fail('setMaxTxPower', 5);
      this.txQuarterDbm = q;
    });
  }
  getTxPower() {
    return this.op('getTxPower', () => this.txQuarterDbm / 4);
  }
  configHeartbeat(enable: boolean, periodS = 10) {
    return this.op('configHeartbeat', () => {
      this.heartbeat = { enabled: enable, periodS: Math.min(3600, Math.max(10, periodS)) };
    });
  }
  // The documented firmware does not know the current firmware's operations: it never answers them.
  private unknownToDocumented(name: string): Promise<never> {
    return this.op(name, () => {
      throw new CoprocError(name, 'timeout', null, 'no response');
    });
  }
  enableDisable() {
    return this.unknownToDocumented('enableDisable');
  }
  getFwVersion() {
    return this.unknownToDocumented('getFwVersion');
  }
  // The documented firmware's silence: no call recorded, the tests' call lists stay as they were.
  detectFirmware() {
    return Promise.resolve({ generation: 'documented' as const, version: null });
  }
  setCountryCode() {
    return this.unknownToDocumented('setCountryCode');
  }
  getCountryCode() {
    return this.unknownToDocumented('getCountryCode');
  }
  async close() {
    this.linkUp = false;
  }

  // ── scenario controls ───────────────────────────────────────────────────────────────────────

  /** The access point the station is on disappears: event 303 with reason 200 (beacon timeout). */
  dropStation(reason = 200): void {
    this.station = null;
    this.emit('stationDisconnected', { reason });
  }

  /** The device rebooted: radio down, heartbeats off, then devInit. */
  reboot(): void {
    this.station = null;
    this.softAp = null;
    this.phones = [];
    this.mode = 'none';
    this.heartbeat = { enabled: false, periodS: 0 };
    this.emit('devInit', { initData: new Uint8Array(0) });
  }
}
