/**
 * The coprocessor client: typed methods for the operations of both firmware generations over
 * framing + codec + a transport. Frames from the device are decoded here and go one of two ways:
 * answers to the request path (request-path.ts: the queue, timeouts, matching), events to the
 * event path (event-path.ts: the host's typed events). The link's counters are kept here.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from '../log/logger.js';
import {
  CoprocError,
  emptyLinkCounters,
  type CoprocClientApi,
  type BootAnnouncement,
  type CoprocEvents,
  type ConnectRequest,
  type FirmwareInfo,
  type FirmwareVersion,
  type HostedFeatureName,
  type LinkCounters,
  type PowerSaveName,
  type ScanEntry,
  type SoftApConfig,
  type SoftApStationInfo,
  type StationConfig,
  type VendorIe,
  type WifiInterface,
  type WifiModeName,
} from './api.js';
import { decodeCtrlMsg, DecodeError, type Body, type CtrlMessage } from './codec.js';
import {
  bandwidthFromWire,
  bandwidthToWire,
  bytesOf,
  dbmToQuarter,
  interfaceToWire,
  modeFromWire,
  modeToWire,
  powerSaveFromWire,
  powerSaveToWire,
  quarterToDbm,
  securityFromWire,
  securityToWire,
  ssidText,
  stripNul,
  utf8,
} from './convert.js';
import { emitDeviceEvent } from './event-path.js';
import { createFraming, type Endpoint, type FrameFault, type Framing, type FramingKind } from './framing/index.js';
import { chipName } from './framing/priv-init.js';
import { isMac, macFromWire, macToWire } from './mac.js';
import { eventById, MSG_TYPE, OPERATION, type OperationName } from './operations.js';
import { argument, check, throwUnlessOk, unexpected } from './operation-errors.js';
import { RequestPath, type CallOptions } from './request-path.js';
import type { Transport } from './transport/types.js';

export type { CallOptions } from './request-path.js';

export interface CoprocClientOptions {
  transport: Transport;
  framing: FramingKind;
  log: Logger;
  /** Per-operation timeouts in ms, replacing the table's defaults. */
  timeouts?: Partial<Record<OperationName, number>>;
  /** Requests allowed to wait behind the one in flight (default 64). */
  queueLimit?: number;
}

const FAULT_LOG_INTERVAL_MS = 10_000;
const MAX_SSID = 32;
const MAX_PASSPHRASE = 64;
export const OTA_CHUNK_MAX = 4000;
const FEATURES: Record<HostedFeatureName, number> = { wifi: 1, bluetooth: 2, network_split: 3 };
/** ISO 3166-1 alpha-2; the firmware also takes a third octet (' ', 'O', 'I') it does not need from us. */
const COUNTRY_CODE = /^[A-Z]{2}$/;
/** A device that answers at all answers GetFwVersion within this, if its firmware knows it. */
const FIRMWARE_PROBE_MS = 2000;

export class CoprocClient extends EventEmitter<CoprocEvents> implements CoprocClientApi {
  private readonly transport: Transport;
  private readonly framing: Framing;
  private readonly log: Logger;
  private readonly requests: RequestPath;
  private answering = true;
  private closed = false;
  /** Why requests are refused before the client closes (the daemon is stopping), or null. */
  private refusal: string | null = null;
  private wasUp = false;
  private lastFaultLog = 0;
  private booted: BootAnnouncement | null = null;
  private readonly stats: LinkCounters = emptyLinkCounters();

  constructor(options: CoprocClientOptions) {
    super();
    this.transport = options.transport;
    this.log = options.log;
    this.framing = createFraming(options.framing, 'host', {
      frame: (endpoint, data) => this.onFrame(endpoint, data),
      fault: (fault, detail) => this.onFault(fault, detail),
      privInit: (init) => {
        const fw = init.fwVersion ? `${init.fwVersion.name}-${init.fwVersion.parts.join('.')}` : null;
        this.log.debug('coprocessor boot announcement', {
          chip_id: init.chipId,
          capabilities: init.capabilities,
          firmware: fw,
        });
        this.booted = { chip: chipName(init.chipId), chipId: init.chipId, firmwareVersion: fw };
        this.emit('boot', this.booted);
      },
    });
    this.requests = new RequestPath({
      transport: this.transport,
      framing: this.framing,
      log: this.log,
      stats: this.stats,
      timeouts: options.timeouts ?? {},
      queueLimit: options.queueLimit ?? 64,
      answered: (answering, operation) => this.setAnswering(answering, operation),
      unknown: (message, what) => this.onUnknown(message, what),
    });
    this.transport.on('data', (chunk) => this.framing.push(chunk));
    this.transport.on('up', () => {
      this.framing.reset();
      this.wasUp = true;
      this.emit('link', { up: true });
    });
    this.transport.on('refused', (reason) => this.onRefused(reason));
    this.transport.on('down', (reason) => {
      this.framing.reset();
      if (this.wasUp) this.stats.linkDrops += 1;
      this.wasUp = false;
      this.requests.failAll(`the coprocessor link is down (${reason})`);
      this.emit('link', { up: false, reason });
    });
  }

  /** Opens the transport (and keeps reopening it). */
  start(): void {
    this.transport.start();
  }

  get linkUp(): boolean {
    return this.transport.isOpen;
  }

  get lastBoot(): BootAnnouncement | null {
    return this.booted;
  }

  get description(): string {
    return this.transport.description;
  }

  counters(): LinkCounters {
    return { ...this.stats };
  }

  /**
   * One operation with the raw request and response messages (protobuf field names, bytes as
   * Uint8Array). Resolves with whatever the device answered, `resp` included; the typed methods
   * below turn a non-zero `resp` into a CoprocError.
   */
  call(operation: OperationName, request: Body = {}, options: CallOptions = {}): Promise<Body> {
    const spec = OPERATION[operation];
    const refusal = this.refusalNow();
    if (refusal !== null)
      return Promise.reject(new CoprocError(operation, 'link_down', null, `${spec.protocolName}: ${refusal}`));
    return this.requests.call(operation, request, options);
  }

  /** Why no request can be sent now, or null. */
  private refusalNow(): string | null {
    if (this.closed) return 'the client is closed';
    return this.refusal ?? (this.transport.isOpen ? null : 'the coprocessor link is down');
  }

  abandonRequests(reason: string): void {
    this.refusal = reason;
    this.requests.failAll(reason);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.requests.failAll('the coprocessor client is closing');
    await this.transport.close();
  }

  // ── the operations ──────────────────────────────────────────────────────────────────────────

  async getMac(iface: WifiInterface): Promise<string> {
    const mode = argument('getMac', () => interfaceToWire(iface));
    return macFromWire(bytesOf((await this.run('getMac', { mode })).mac));
  }

  async setMac(iface: WifiInterface, mac: string): Promise<void> {
    const mode = argument('setMac', () => interfaceToWire(iface));
    check('setMac', isMac(mac), `${JSON.stringify(mac)} is not a MAC address (xx:xx:xx:xx:xx:xx)`);
    await this.run('setMac', { mac: macToWire(mac), mode });
  }

  async getMode(): Promise<WifiModeName> {
    const { mode } = await this.run('getMode');
    return modeFromWire(mode as number) ?? unexpected('getMode', `mode ${String(mode)}`);
  }

  async setMode(mode: WifiModeName): Promise<void> {
    await this.run('setMode', { mode: argument('setMode', () => modeToWire(mode)) });
  }

  async scan(): Promise<ScanEntry[]> {
    const { entries, count } = await this.run('scan');
    // The firmware counts every entry it sends (slave_control.c, req_get_ap_scan_list_handler).
    const received = (entries as Body[] | undefined)?.length ?? 0;
    if (count !== undefined && Number(count) !== received)
      throw new CoprocError(
        'scan',
        'truncated',
        null,
        `GetAPScanList: ${received} of ${Number(count)} networks arrived`,
      );
    return ((entries as Body[] | undefined) ?? []).map((entry) => {
      const ssidBytes = bytesOf(entry.ssid);
      return {
        ssid: ssidText(ssidBytes),
        ssidBytes,
        bssid: macFromWire(bytesOf(entry.bssid)),
        rssi: entry.rssi as number,
        channel: entry.chnl as number,
        security: securityFromWire(entry.sec_prot as number),
      };
    });
  }

  async getApConfig(): Promise<StationConfig | null> {
    const answer = await this.call('getApConfig');
    if (answer.resp === 1) return null; // Not_Connected
    throwUnlessOk('getApConfig', answer);
    const ssidBytes = stripNul(bytesOf(answer.ssid));
    return {
      ssid: ssidText(ssidBytes),
      ssidBytes,
      bssid: macFromWire(bytesOf(answer.bssid)),
      rssi: answer.rssi as number,
      channel: answer.chnl as number,
      security: securityFromWire(answer.sec_prot as number),
    };
  }

  async connectAp(request: ConnectRequest): Promise<{ mac: string }> {
    const ssid = typeof request.ssid === 'string' ? utf8(request.ssid) : request.ssid;
    const pwd = utf8(request.password ?? '');
    check('connectAp', ssid.length >= 1 && ssid.length <= MAX_SSID, `the SSID must be 1 to ${MAX_SSID} bytes`);
    check('connectAp', pwd.length <= MAX_PASSPHRASE, `the passphrase must be at most ${MAX_PASSPHRASE} bytes`);
    check('connectAp', !request.bssid || isMac(request.bssid), `${JSON.stringify(request.bssid)} is not a BSSID`);
    const answer = await this.run('connectAp', {
      ssid,
      pwd,
      bssid: request.bssid ? macToWire(request.bssid) : undefined,
      is_wpa3_supported: request.wpa3Supported ?? false,
      listen_interval: request.listenInterval ?? 0,
    });
    return { mac: macFromWire(bytesOf(answer.mac)) };
  }

  async disconnectAp(): Promise<void> {
    await this.run('disconnectAp');
  }

  async getSoftApConfig(): Promise<SoftApConfig> {
    const a = await this.run('getSoftApConfig');
    return {
      ssid: ssidText(bytesOf(a.ssid)),
      password: ssidText(bytesOf(a.pwd)),
      channel: a.chnl as number,
      security: securityFromWire(a.sec_prot as number),
      maxConnections: a.max_conn as number,
      ssidHidden: Boolean(a.ssid_hidden),
      bandwidth: bandwidthFromWire(a.bw as number),
    };
  }

  async setVendorIe(ie: VendorIe): Promise<void> {
    const type = ['beacon', 'probe_req', 'probe_resp', 'assoc_req', 'assoc_resp'].indexOf(ie.type);
    check('setVendorIe', type >= 0, `unknown vendor IE type ${JSON.stringify(ie.type)}`);
    check('setVendorIe', ie.oui.length === 3, 'the vendor OUI is 3 bytes');
    await this.run('setVendorIe', {
      enable: ie.enable,
      type,
      idx: ie.index,
      vendor_ie_data: {
        element_id: ie.elementId,
        length: ie.length,
        vendor_oui: ie.oui,
        vendor_oui_type: ie.ouiType,
        payload: ie.payload,
      },
    });
  }

  async startSoftAp(config: SoftApConfig): Promise<{ mac: string }> {
    const ssid = utf8(config.ssid);
    const pwd = utf8(config.password ?? '');
    const security = argument('startSoftAp', () => securityToWire(config.security));
    check('startSoftAp', ssid.length >= 1 && ssid.length <= MAX_SSID, `the SSID must be 1 to ${MAX_SSID} bytes`);
    check(
      'startSoftAp',
      security === 0 || (pwd.length >= 8 && pwd.length <= MAX_PASSPHRASE),
      'the passphrase must be 8 to 64 characters',
    );
    check('startSoftAp', config.maxConnections >= 1 && config.maxConnections <= 10, 'at most 10 stations (1 to 10)');
    const answer = await this.run('startSoftAp', {
      ssid,
      pwd: security === 0 ? undefined : pwd,
      chnl: config.channel,
      sec_prot: security,
      max_conn: config.maxConnections,
      ssid_hidden: config.ssidHidden,
      bw: argument('startSoftAp', () => bandwidthToWire(config.bandwidth)),
    });
    return { mac: macFromWire(bytesOf(answer.mac)) };
  }

  async softApStations(): Promise<SoftApStationInfo[]> {
    const { stations } = await this.run('softApStations');
    return ((stations as Body[] | undefined) ?? []).map((s) => ({
      mac: macFromWire(bytesOf(s.mac)),
      rssi: s.rssi as number,
    }));
  }

  async stopSoftAp(): Promise<void> {
    await this.run('stopSoftAp');
  }

  async setPowerSave(mode: PowerSaveName): Promise<void> {
    await this.run('setPowerSave', { mode: argument('setPowerSave', () => powerSaveToWire(mode)) });
  }

  async getPowerSave(): Promise<PowerSaveName> {
    const { mode } = await this.run('getPowerSave');
    return powerSaveFromWire(mode as number) ?? unexpected('getPowerSave', `power-save mode ${String(mode)}`);
  }

  async otaBegin(): Promise<void> {
    await this.run('otaBegin');
  }

  async otaWrite(chunk: Uint8Array): Promise<void> {
    check('otaWrite', chunk.length > 0 && chunk.length <= OTA_CHUNK_MAX, `an OTA chunk is 1 to ${OTA_CHUNK_MAX} bytes`);
    await this.run('otaWrite', { ota_data: chunk });
  }

  async otaEnd(): Promise<void> {
    await this.run('otaEnd');
  }

  async setMaxTxPower(dbm: number): Promise<void> {
    check('setMaxTxPower', Number.isFinite(dbm), 'the transmit power is a number of dBm');
    await this.run('setMaxTxPower', { wifi_max_tx_power: dbmToQuarter(dbm) });
  }

  async getTxPower(): Promise<number> {
    return quarterToDbm((await this.run('getTxPower')).wifi_curr_tx_power as number);
  }

  async configHeartbeat(enable: boolean, periodS = 10): Promise<void> {
    check(
      'configHeartbeat',
      Number.isInteger(periodS) && periodS > 0,
      'the heartbeat period is a whole number of seconds',
    );
    await this.run('configHeartbeat', { enable, duration: enable ? periodS : 0 });
  }

  async enableDisable(feature: HostedFeatureName, enable: boolean): Promise<void> {
    const code = FEATURES[feature];
    check('enableDisable', code !== undefined, `unknown feature ${JSON.stringify(feature)}`);
    await this.run('enableDisable', { feature: code, enable });
  }

  async getFwVersion(): Promise<FirmwareVersion> {
    return versionFrom(await this.run('getFwVersion'));
  }

  /**
   * Which firmware generation answers: the current one answers GetFwVersion, the documented one
   * never does (so its silence within `timeoutMs` is the answer, not a lost device).
   */
  async detectFirmware(timeoutMs = FIRMWARE_PROBE_MS): Promise<FirmwareInfo> {
    try {
      const answer = await this.call('getFwVersion', {}, { timeoutMs, probe: true });
      throwUnlessOk('getFwVersion', answer);
      return { generation: 'current', version: versionFrom(answer) };
    } catch (error) {
      if (error instanceof CoprocError && error.kind === 'timeout') return { generation: 'documented', version: null };
      throw error;
    }
  }

  async setCountryCode(country: string, ieee80211d = false): Promise<void> {
    check('setCountryCode', COUNTRY_CODE.test(country), `${JSON.stringify(country)} is not a two-letter country code`);
    await this.run('setCountryCode', { country: utf8(country), ieee80211d_enabled: ieee80211d });
  }

  async getCountryCode(): Promise<string> {
    const { country } = await this.run('getCountryCode');
    return ssidText(stripNul(bytesOf(country))).trim();
  }

  // ── internals ──────────────────────────────────────────────────────────────────────────────────

  private async run(operation: OperationName, request: Body = {}): Promise<Body> {
    const answer = await this.call(operation, request);
    throwUnlessOk(operation, answer);
    return answer;
  }

  private onFrame(endpoint: Endpoint, data: Buffer): void {
    this.stats.framesIn += 1;
    let message: CtrlMessage;
    try {
      message = decodeCtrlMsg(data);
    } catch (error) {
      this.stats.undecodable += 1;
      this.logFault('undecodable message from the coprocessor', {
        endpoint,
        bytes: data.length,
        error: (error as DecodeError).message,
      });
      // Answers come only to requests: a damaged one is the awaited answer (bytes lost in between).
      if (endpoint === 'ctrlResp') this.requests.failDamaged(`an undecodable answer of ${data.length} bytes`);
      return;
    }
    if (message.unknownFields > 0) {
      this.stats.unknownFields += message.unknownFields;
      this.log.debug('skipped fields unknown to the schema (newer firmware)', {
        msg_id: message.msgId,
        fields: message.unknownFields,
      });
    }
    if (message.msgType === MSG_TYPE.event) this.onEvent(message);
    else if (message.msgType === MSG_TYPE.response) this.requests.onResponse(message);
    else this.onUnknown(message, 'neither a response nor an event');
  }

  private onEvent(message: CtrlMessage): void {
    const spec = eventById(message.msgId);
    if (!spec || message.field !== spec.field) {
      this.onUnknown(message, 'an event this schema does not know');
      return;
    }
    this.stats.eventsIn += 1;
    if (spec.name === 'devInit') this.requests.deviceRestarted();
    emitDeviceEvent(this, spec.name, message.body ?? {});
  }

  /** The transport could not send the request in flight: it fails now, not at its timeout. */
  private onRefused(reason: string): void {
    this.stats.refusedWrites += 1;
    this.log.warn('the coprocessor link refused a message', { reason, refused_writes: this.stats.refusedWrites });
    this.requests.refused(reason);
  }

  private onUnknown(message: CtrlMessage, what: string): void {
    this.stats.unknownMessages += 1;
    this.log.info('skipped a coprocessor message', { reason: what, msg_type: message.msgType, msg_id: message.msgId });
  }

  private onFault(fault: FrameFault, detail: string): void {
    if (fault === 'bad_checksum') this.stats.badChecksums += 1;
    else this.stats.badFrames += 1;
    // A frame cut short while an answer is awaited is that answer (esp_serial.c drops what does not
    // fit its 8 KiB ring, "RB full"): fail it now, never parse it, rather than wait for the timeout.
    if (fault === 'truncated') this.requests.failDamaged(detail);
    this.logFault('bad bytes on the coprocessor link', { fault, detail });
  }

  /** Garbage can arrive by the megabyte: log the first fault, then at most one every 10 s. */
  private logFault(msg: string, fields: Record<string, unknown>): void {
    const now = Date.now();
    if (now - this.lastFaultLog < FAULT_LOG_INTERVAL_MS) return;
    this.lastFaultLog = now;
    this.log.warn(msg, { ...fields, counters: this.counters() });
  }

  private setAnswering(answering: boolean, operation: OperationName): void {
    if (this.answering === answering) return;
    this.answering = answering;
    this.emit('answering', { answering, operation });
  }
}

function versionFrom(answer: Body): FirmwareVersion {
  const parts = [answer.major1, answer.major2, answer.minor, answer.rev_patch1, answer.rev_patch2].map(
    (n) => Number(n) || 0,
  );
  const name = ssidText(stripNul(bytesOf(answer.name)));
  return { name, parts, text: `${name}-${parts.join('.')}` };
}
