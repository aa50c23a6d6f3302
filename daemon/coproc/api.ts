/**
 * The coprocessor client as the rest of the daemon sees it: friendly types (MACs as lowercase
 * "xx:xx:xx:xx:xx:xx" strings, enums as names, transmit power in dBm), one method per operation of
 * the control protocol, and typed events. The connectivity subsystem depends on this interface only;
 * daemon/coproc/client.ts implements it over framing + codec + a transport.
 */
import type { EventEmitter } from 'node:events';

export type WifiModeName = 'none' | 'station' | 'softap' | 'apsta';
/** The MAC-bearing interfaces: GetMAC/SetMAC accept only these. */
export type WifiInterface = 'station' | 'softap';
/** 'none' (wire 0) is refused by the documented firmware (PS_Invalid) and accepted by the current one (NO_PS). */
export type PowerSaveName = 'none' | 'min_modem' | 'max_modem';
/** Req_EnableDisable's features (current firmware). */
export type HostedFeatureName = 'wifi' | 'bluetooth' | 'network_split';

/** What answered at start-up: the generation, and the version when the firmware tells it. */
export interface FirmwareInfo {
  generation: 'documented' | 'current';
  version: FirmwareVersion | null;
}

/** Resp_GetFwVersion: the project name ("FG") and five numbers; `text` as the firmware's build prints it. */
export interface FirmwareVersion {
  name: string;
  parts: number[];
  text: string;
}
export type BandwidthName = 'ht20' | 'ht40';
/** Ctrl_WifiSecProt names; real scans may report higher IDF values, kept as `unknown_<n>`. */
export type SecurityName =
  | 'open'
  | 'wep'
  | 'wpa_psk'
  | 'wpa2_psk'
  | 'wpa_wpa2_psk'
  | 'wpa2_enterprise'
  | 'wpa3_psk'
  | 'wpa2_wpa3_psk'
  | `unknown_${number}`;

export interface ScanEntry {
  /** SSID decoded as UTF-8 for display; `ssidBytes` is what the air carries (may not be UTF-8). */
  ssid: string;
  ssidBytes: Uint8Array;
  bssid: string;
  rssi: number;
  channel: number;
  security: SecurityName;
}

/** The access point the station is connected to (GetAPConfig): the same fields as a scan entry. */
export type StationConfig = ScanEntry;

export interface ConnectRequest {
  ssid: string | Uint8Array;
  password: string;
  /** Lock to one access point; empty or absent for any. */
  bssid?: string;
  wpa3Supported?: boolean;
  listenInterval?: number;
}

export interface SoftApConfig {
  ssid: string;
  password: string;
  channel: number;
  security: SecurityName;
  maxConnections: number;
  ssidHidden: boolean;
  bandwidth: BandwidthName;
}

export interface SoftApStationInfo {
  mac: string;
  rssi: number;
}

export interface VendorIe {
  enable: boolean;
  type: 'beacon' | 'probe_req' | 'probe_resp' | 'assoc_req' | 'assoc_resp';
  index: 0 | 1;
  elementId: number;
  length: number;
  oui: Uint8Array;
  ouiType: number;
  payload: Uint8Array;
}

/** Why an operation failed: the device said no (`device`), said nothing, or the link is down. */
/** `truncated`: the answer lost bytes on the way (the esps driver's receive ring overflowed). */
export type CoprocErrorKind = 'device' | 'timeout' | 'link_down' | 'invalid' | 'truncated';

export class CoprocError extends Error {
  constructor(
    readonly operation: string,
    readonly kind: CoprocErrorKind,
    /** The device's `resp` when kind is 'device' (−1 failure, 1 not connected, 5 out of range). */
    readonly code: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'CoprocError';
  }
}

/** What the chip says when it boots (serial framing's private INIT event). */
export interface BootAnnouncement {
  chip: string | null;
  chipId: number | null;
  firmwareVersion: string | null;
}

export interface CoprocEvents {
  /**
   * Event_DevInit: the device (re)booted — after power-up, a crash or an OTA. Behind the Linux
   * driver (`esps:`) the boot also recreates /dev/esps0, so the link goes down and up and this
   * event can be missed: treat a link that comes back up as a possible reboot too.
   */
  devInit: [{ initData: Uint8Array }];
  /**
   * The boot announcement on ESP-Hosted's private interface (header-framed transports only, just
   * before devInit): the chip the firmware runs on, by name ('ESP32-C3'…), or null if unknown, and
   * the firmware version ("FG-1.0.0.0.0") that only the current firmware announces (null otherwise).
   */
  boot: [BootAnnouncement];
  heartbeat: [{ number: number }];
  /**
   * Event 303: `reason` is the IDF disconnect reason (e.g. 201 NO_AP_FOUND, 202 AUTH_FAIL), from
   * `resp` (documented firmware) or its own field (current firmware). The current firmware also
   * names the network (`ssid`); the documented one does not (null).
   */
  stationDisconnected: [{ reason: number; ssid?: string | null; ssidBytes?: Uint8Array | null }];
  /** Event 304: a phone left the soft AP. */
  softApStationDisconnected: [{ mac: string; reason: number }];
  /** Event 305 (current firmware): the station associated with this network. */
  stationConnected: [{ ssid: string; ssidBytes: Uint8Array; bssid: string; channel: number; security: SecurityName }];
  /** Event 306 (current firmware): a phone joined the soft AP. */
  softApStationConnected: [{ mac: string; aid: number }];
  /** Event 307 (current firmware): an application-defined event. */
  customRpc: [{ id: number; data: Uint8Array }];
  /** Event 308 (current firmware): the coprocessor's own network stack status (network-split builds). */
  dhcpDnsStatus: [{ iface: number; linkUp: boolean; dhcpUp: boolean; dnsUp: boolean }];
  /** The transport opened (device present) or closed (unplugged, driver reloaded). */
  link: [{ up: boolean; reason?: string }];
  /** The device stopped answering (a request timed out) or answers again (a response arrived). */
  answering: [{ answering: boolean; operation: string }];
}

export interface LinkCounters {
  framesIn: number;
  framesOut: number;
  badFrames: number;
  badChecksums: number;
  undecodable: number;
  unknownMessages: number;
  lateResponses: number;
  timeouts: number;
  /** Fields of newer firmware the seed schema does not know, skipped while decoding. */
  unknownFields: number;
  eventsIn: number;
  /** Times the transport went down. */
  linkDrops: number;
  /** Messages the transport refused to send (larger than the esps driver's write limit). */
  refusedWrites: number;
}

/** Counters of a link that has seen nothing yet. */
export function emptyLinkCounters(): LinkCounters {
  return {
    framesIn: 0,
    framesOut: 0,
    badFrames: 0,
    badChecksums: 0,
    undecodable: 0,
    unknownMessages: 0,
    lateResponses: 0,
    timeouts: 0,
    unknownFields: 0,
    eventsIn: 0,
    linkDrops: 0,
    refusedWrites: 0,
  };
}

export interface CoprocClientApi extends EventEmitter<CoprocEvents> {
  readonly linkUp: boolean;
  /** The last boot announcement heard on this link, for a part that starts listening after it. */
  readonly lastBoot: BootAnnouncement | null;
  counters(): LinkCounters;
  /**
   * Fails every request in flight or waiting, and refuses every later one with `reason` (the daemon
   * is stopping: no answer is worth waiting for, and an operation under way must not go on).
   */
  abandonRequests(reason: string): void;

  getMac(iface: WifiInterface): Promise<string>;
  setMac(iface: WifiInterface, mac: string): Promise<void>;
  getMode(): Promise<WifiModeName>;
  setMode(mode: WifiModeName): Promise<void>;
  scan(): Promise<ScanEntry[]>;
  /** null when the station is not connected (the device answers resp 1). */
  getApConfig(): Promise<StationConfig | null>;
  /** Resolves with the station MAC once connected; rejects with CoprocError otherwise. */
  connectAp(request: ConnectRequest): Promise<{ mac: string }>;
  disconnectAp(): Promise<void>;
  getSoftApConfig(): Promise<SoftApConfig>;
  setVendorIe(ie: VendorIe): Promise<void>;
  startSoftAp(config: SoftApConfig): Promise<{ mac: string }>;
  softApStations(): Promise<SoftApStationInfo[]>;
  stopSoftAp(): Promise<void>;
  setPowerSave(mode: PowerSaveName): Promise<void>;
  getPowerSave(): Promise<PowerSaveName>;
  otaBegin(): Promise<void>;
  otaWrite(chunk: Uint8Array): Promise<void>;
  otaEnd(): Promise<void>;
  /** dBm; the device works in 0.25 dBm units and accepts 2–21 dBm (8–84). */
  setMaxTxPower(dbm: number): Promise<void>;
  getTxPower(): Promise<number>;
  /** Heartbeat every `periodS` seconds (the device clamps to 10–3600), or off. */
  configHeartbeat(enable: boolean, periodS?: number): Promise<void>;
  /** Current firmware only; the documented one does not answer (timeout). */
  enableDisable(feature: HostedFeatureName, enable: boolean): Promise<void>;
  getFwVersion(): Promise<FirmwareVersion>;
  /** GetFwVersion as a probe: answered → current firmware; silence → documented (not a lost device). */
  detectFirmware(timeoutMs?: number): Promise<FirmwareInfo>;
  /** Two letters (ISO 3166-1); `ieee80211d` lets the access points' country override it. */
  setCountryCode(country: string, ieee80211d?: boolean): Promise<void>;
  getCountryCode(): Promise<string>;

  close(): Promise<void>;
}
