/**
 * The operations and events of the control protocol, described once: the documented firmware's 21
 * operations and 4 events, and what the current firmware (2024 on) added (`since: 'current'`). The client's methods,
 * the `coproc` command and the simulator's dispatch are all driven by these tables.
 */

export const OPERATION_NAMES = [
  'getMac',
  'setMac',
  'getMode',
  'setMode',
  'scan',
  'getApConfig',
  'connectAp',
  'disconnectAp',
  'getSoftApConfig',
  'setVendorIe',
  'startSoftAp',
  'softApStations',
  'stopSoftAp',
  'setPowerSave',
  'getPowerSave',
  'otaBegin',
  'otaWrite',
  'otaEnd',
  'setMaxTxPower',
  'getTxPower',
  'configHeartbeat',
  'enableDisable',
  'getFwVersion',
  'setCountryCode',
  'getCountryCode',
] as const;
export type OperationName = (typeof OPERATION_NAMES)[number];

/** The documented (seed-era) ESP-Hosted-FG firmware, or the current one (2024 on). */
export type FirmwareGeneration = 'documented' | 'current';
export const FIRMWARE_GENERATIONS: readonly FirmwareGeneration[] = ['documented', 'current'];

export interface OperationSpec {
  name: OperationName;
  /** The first firmware generation that answers it; the documented one ignores the newer ids. */
  since: FirmwareGeneration;
  /** Request id (101–125); the response id is id + 100. */
  id: number;
  /** The operation's name in ESP-Hosted's control API (shown by `npm run coproc -- --help`). */
  protocolName: string;
  /** Command-line name (`npm run coproc -- <cli>`). */
  cli: string;
  requestField: string;
  requestType: string;
  responseField: string;
  responseType: string;
  /** How long the client waits for the answer; the device sends none to a request it cannot parse. */
  timeoutMs: number;
  /** int32 fields that carry an enum value: field name → enum name (for names on the command line). */
  enumFields?: Readonly<Record<string, string>>;
}

/** The documented firmware's Req_Max: ids from here on are the current firmware's. */
const DOCUMENTED_REQ_MAX = 122;
const S = 1000;
const DEFAULT_TIMEOUT_MS = 5 * S;
/** A blocking all-channel scan takes 2–4 s on the device; hidden and passive channels more. */
const SCAN_TIMEOUT_MS = 30 * S;
/** The seed-era firmware answers ConnectAP only when connected or failed, after up to 3 attempts. */
const CONNECT_TIMEOUT_MS = 60 * S;
/** OTABegin erases the whole partition; OTAEnd verifies the image. */
const OTA_SLOW_TIMEOUT_MS = 30 * S;

type Row = [OperationName, number, string, string, string, string, string, string, number?, Record<string, string>?];

// name, id, protocol name, cli, request field, request type, response field, response type, timeout, enum fields
const ROWS: Row[] = [
  [
    'getMac',
    101,
    'GetMACAddress',
    'get-mac',
    'req_get_mac_address',
    'CtrlMsg_Req_GetMacAddress',
    'resp_get_mac_address',
    'CtrlMsg_Resp_GetMacAddress',
    undefined,
    { mode: 'Ctrl_WifiMode' },
  ],
  [
    'setMac',
    102,
    'SetMacAddress',
    'set-mac',
    'req_set_mac_address',
    'CtrlMsg_Req_SetMacAddress',
    'resp_set_mac_address',
    'CtrlMsg_Resp_SetMacAddress',
    undefined,
    { mode: 'Ctrl_WifiMode' },
  ],
  [
    'getMode',
    103,
    'GetWifiMode',
    'get-mode',
    'req_get_wifi_mode',
    'CtrlMsg_Req_GetMode',
    'resp_get_wifi_mode',
    'CtrlMsg_Resp_GetMode',
    undefined,
    { mode: 'Ctrl_WifiMode' },
  ],
  [
    'setMode',
    104,
    'SetWifiMode',
    'set-mode',
    'req_set_wifi_mode',
    'CtrlMsg_Req_SetMode',
    'resp_set_wifi_mode',
    'CtrlMsg_Resp_SetMode',
    undefined,
    { mode: 'Ctrl_WifiMode' },
  ],
  [
    'scan',
    105,
    'GetAPScanList',
    'scan',
    'req_scan_ap_list',
    'CtrlMsg_Req_ScanResult',
    'resp_scan_ap_list',
    'CtrlMsg_Resp_ScanResult',
    SCAN_TIMEOUT_MS,
  ],
  [
    'getApConfig',
    106,
    'GetAPConfig',
    'get-ap-config',
    'req_get_ap_config',
    'CtrlMsg_Req_GetAPConfig',
    'resp_get_ap_config',
    'CtrlMsg_Resp_GetAPConfig',
  ],
  [
    'connectAp',
    107,
    'ConnectAP',
    'connect-ap',
    'req_connect_ap',
    'CtrlMsg_Req_ConnectAP',
    'resp_connect_ap',
    'CtrlMsg_Resp_ConnectAP',
    CONNECT_TIMEOUT_MS,
  ],
  [
    'disconnectAp',
    108,
    'DisconnectAP',
    'disconnect-ap',
    'req_disconnect_ap',
    'CtrlMsg_Req_GetStatus',
    'resp_disconnect_ap',
    'CtrlMsg_Resp_GetStatus',
  ],
  [
    'getSoftApConfig',
    109,
    'GetSoftAPConfig',
    'get-softap-config',
    'req_get_softap_config',
    'CtrlMsg_Req_GetSoftAPConfig',
    'resp_get_softap_config',
    'CtrlMsg_Resp_GetSoftAPConfig',
    undefined,
    { bw: 'Ctrl_WifiBw' },
  ],
  [
    'setVendorIe',
    110,
    'SetSoftAPVendorSpecificIE',
    'set-vendor-ie',
    'req_set_softap_vendor_specific_ie',
    'CtrlMsg_Req_SetSoftAPVendorSpecificIE',
    'resp_set_softap_vendor_specific_ie',
    'CtrlMsg_Resp_SetSoftAPVendorSpecificIE',
  ],
  [
    'startSoftAp',
    111,
    'StartSoftAP',
    'start-softap',
    'req_start_softap',
    'CtrlMsg_Req_StartSoftAP',
    'resp_start_softap',
    'CtrlMsg_Resp_StartSoftAP',
    undefined,
    { bw: 'Ctrl_WifiBw' },
  ],
  [
    'softApStations',
    112,
    'GetSoftAPConnectedSTAList',
    'softap-stations',
    'req_softap_connected_stas_list',
    'CtrlMsg_Req_SoftAPConnectedSTA',
    'resp_softap_connected_stas_list',
    'CtrlMsg_Resp_SoftAPConnectedSTA',
  ],
  [
    'stopSoftAp',
    113,
    'StopSoftAP',
    'stop-softap',
    'req_stop_softap',
    'CtrlMsg_Req_GetStatus',
    'resp_stop_softap',
    'CtrlMsg_Resp_GetStatus',
  ],
  [
    'setPowerSave',
    114,
    'SetPowerSaveMode',
    'set-power-save',
    'req_set_power_save_mode',
    'CtrlMsg_Req_SetMode',
    'resp_set_power_save_mode',
    'CtrlMsg_Resp_SetMode',
    undefined,
    { mode: 'Ctrl_WifiPowerSave' },
  ],
  [
    'getPowerSave',
    115,
    'GetPowerSaveMode',
    'get-power-save',
    'req_get_power_save_mode',
    'CtrlMsg_Req_GetMode',
    'resp_get_power_save_mode',
    'CtrlMsg_Resp_GetMode',
    undefined,
    { mode: 'Ctrl_WifiPowerSave' },
  ],
  [
    'otaBegin',
    116,
    'OTABegin',
    'ota-begin',
    'req_ota_begin',
    'CtrlMsg_Req_OTABegin',
    'resp_ota_begin',
    'CtrlMsg_Resp_OTABegin',
    OTA_SLOW_TIMEOUT_MS,
  ],
  [
    'otaWrite',
    117,
    'OTAWrite',
    'ota-write',
    'req_ota_write',
    'CtrlMsg_Req_OTAWrite',
    'resp_ota_write',
    'CtrlMsg_Resp_OTAWrite',
    10 * S,
  ],
  [
    'otaEnd',
    118,
    'OTAEnd',
    'ota-end',
    'req_ota_end',
    'CtrlMsg_Req_OTAEnd',
    'resp_ota_end',
    'CtrlMsg_Resp_OTAEnd',
    OTA_SLOW_TIMEOUT_MS,
  ],
  [
    'setMaxTxPower',
    119,
    'SetWifiMaxTxPower',
    'set-max-tx-power',
    'req_set_wifi_max_tx_power',
    'CtrlMsg_Req_SetWifiMaxTxPower',
    'resp_set_wifi_max_tx_power',
    'CtrlMsg_Resp_SetWifiMaxTxPower',
  ],
  [
    'getTxPower',
    120,
    'GetWifiCurrTxPower',
    'get-tx-power',
    'req_get_wifi_curr_tx_power',
    'CtrlMsg_Req_GetWifiCurrTxPower',
    'resp_get_wifi_curr_tx_power',
    'CtrlMsg_Resp_GetWifiCurrTxPower',
  ],
  [
    'configHeartbeat',
    121,
    'ConfigHeartbeat',
    'config-heartbeat',
    'req_config_heartbeat',
    'CtrlMsg_Req_ConfigHeartbeat',
    'resp_config_heartbeat',
    'CtrlMsg_Resp_ConfigHeartbeat',
  ],
  [
    'enableDisable',
    122,
    'EnableDisable',
    'enable-disable',
    'req_enable_disable_feat',
    'CtrlMsg_Req_EnableDisable',
    'resp_enable_disable_feat',
    'CtrlMsg_Resp_EnableDisable',
    undefined,
    { feature: 'HostedFeature' },
  ],
  [
    'getFwVersion',
    123,
    'GetFwVersion',
    'get-fw-version',
    'req_get_fw_version',
    'CtrlMsg_Req_GetFwVersion',
    'resp_get_fw_version',
    'CtrlMsg_Resp_GetFwVersion',
  ],
  [
    'setCountryCode',
    124,
    'SetCountryCode',
    'set-country-code',
    'req_set_country_code',
    'CtrlMsg_Req_SetCountryCode',
    'resp_set_country_code',
    'CtrlMsg_Resp_SetCountryCode',
  ],
  [
    'getCountryCode',
    125,
    'GetCountryCode',
    'get-country-code',
    'req_get_country_code',
    'CtrlMsg_Req_GetCountryCode',
    'resp_get_country_code',
    'CtrlMsg_Resp_GetCountryCode',
  ],
];

export const OPERATIONS: readonly OperationSpec[] = ROWS.map(
  ([name, id, protocolName, cli, requestField, requestType, responseField, responseType, timeoutMs, enumFields]) =>
    Object.freeze({
      name,
      since: id < DOCUMENTED_REQ_MAX ? 'documented' : 'current',
      id,
      protocolName,
      cli,
      requestField,
      requestType,
      responseField,
      responseType,
      timeoutMs: timeoutMs ?? DEFAULT_TIMEOUT_MS,
      enumFields,
    }),
);

export const OPERATION = Object.fromEntries(OPERATIONS.map((op) => [op.name, op])) as Readonly<
  Record<OperationName, OperationSpec>
>;
const BY_ID = new Map(OPERATIONS.map((op) => [op.id, op]));
const BY_CLI = new Map(OPERATIONS.map((op) => [op.cli, op]));

export const operationById = (id: number): OperationSpec | undefined => BY_ID.get(id);
export const operationByCli = (cli: string): OperationSpec | undefined => BY_CLI.get(cli);

export const REQ_BASE = 100;
export const RESP_OFFSET = 100;
/** One past the last ids the schema knows (the current firmware's Req_Max, Resp_Max, Event_Max). */
export const REQ_MAX = 129;
export const RESP_MAX = 229;
export const EVENT_MAX = 309;

export const MSG_TYPE = { invalid: 0, request: 1, response: 2, event: 3 } as const;

export type EventName =
  | 'devInit'
  | 'heartbeat'
  | 'stationDisconnected'
  | 'softApStationDisconnected'
  | 'stationConnected'
  | 'softApStationConnected'
  | 'customRpc'
  | 'dhcpDnsStatus';

export interface EventSpec {
  name: EventName;
  since: FirmwareGeneration;
  id: number;
  protocolName: string;
  field: string;
  type: string;
}

export const EVENTS: readonly EventSpec[] = [
  {
    name: 'devInit',
    since: 'documented',
    id: 301,
    protocolName: 'Event_DevInit',
    field: 'event_dev_init',
    type: 'CtrlMsg_Event_DevInit',
  },
  {
    name: 'heartbeat',
    since: 'documented',
    id: 302,
    protocolName: 'Event_Heartbeat',
    field: 'event_heartbeat',
    type: 'CtrlMsg_Event_Heartbeat',
  },
  {
    name: 'stationDisconnected',
    since: 'documented',
    id: 303,
    protocolName: 'Event_StationDisconnectFromAP',
    field: 'event_station_disconnect_from_AP',
    type: 'CtrlMsg_Event_StationDisconnectFromAP',
  },
  {
    name: 'softApStationDisconnected',
    since: 'documented',
    id: 304,
    protocolName: 'Event_StationDisconnectFromDevSoftAP',
    field: 'event_station_disconnect_from_Dev_SoftAP',
    type: 'CtrlMsg_Event_StationDisconnectFromDevSoftAP',
  },
  {
    name: 'stationConnected',
    since: 'current',
    id: 305,
    protocolName: 'Event_StationConnectedToAP',
    field: 'event_station_connected_to_AP',
    type: 'CtrlMsg_Event_StationConnectedToAP',
  },
  {
    name: 'softApStationConnected',
    since: 'current',
    id: 306,
    protocolName: 'Event_StationConnectedToDevSoftAP',
    field: 'event_station_connected_to_Dev_SoftAP',
    type: 'CtrlMsg_Event_StationConnectedToDevSoftAP',
  },
  {
    name: 'customRpc',
    since: 'current',
    id: 307,
    protocolName: 'Event_Custom_RPC_Unserialised_Msg',
    field: 'event_custom_rpc_unserialised_msg',
    type: 'CtrlMsg_Event_CustomRpcUnserialisedMsg',
  },
  {
    name: 'dhcpDnsStatus',
    since: 'current',
    id: 308,
    protocolName: 'Event_SetDhcpDnsStatus',
    field: 'event_set_dhcp_dns_status',
    type: 'CtrlMsg_Event_SetDhcpDnsStatus',
  },
];

export const EVENT = Object.fromEntries(EVENTS.map((e) => [e.name, e])) as Readonly<Record<EventName, EventSpec>>;
const EVENT_BY_ID = new Map(EVENTS.map((e) => [e.id, e]));
export const eventById = (id: number): EventSpec | undefined => EVENT_BY_ID.get(id);
