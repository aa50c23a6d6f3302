/**
 * What the outputs (MQTT, web) may ask of the device. Commands go down through the connectivity
 * subsystem (daemon/connectivity/device-control.ts implements this), never straight to the
 * coprocessor link.
 */
export type PowerSaveMode = 'none' | 'min_modem' | 'max_modem';

export interface ScannedNetwork {
  ssid: string;
  bssid: string;
  rssi: number;
  channel: number;
  security: string;
}

export interface DeviceCommands {
  scan(): Promise<ScannedNetwork[]>;
  enterSetupMode(): Promise<void>;
  /** Returns the power the device actually applied, in dBm. */
  setTxPower(dbm: number): Promise<number>;
  setPowerSave(mode: PowerSaveMode): Promise<void>;
  restartCoprocessor(): Promise<void>;
}
