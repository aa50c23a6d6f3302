/**
 * What the outputs (MQTT, web) may ask of the device. Commands go down through the connectivity
 * subsystem (daemon/connectivity/device-control.ts implements this), never straight to the
 * coprocessor link.
 */
export type PowerSaveMode = 'none' | 'min_modem' | 'max_modem';

/**
 * The transmit powers the ESP32's driver applies, in dBm: esp_wifi_set_max_tx_power rounds any
 * other value to one of these (its levels 8, 20, 28, 34, 44, 52, 56, 60, 66, 72, 80, 84 in 0.25 dBm).
 */
export const TX_POWER_LEVELS_DBM = [2, 5, 7, 8.5, 11, 13, 14, 15, 16.5, 18, 20, 21] as const;

/** The power-save modes a firmware generation accepts: WIFI_PS_NONE (NO_PS) only on the current one. */
export function powerSaveModesOf(generation: 'documented' | 'current' | null): PowerSaveMode[] {
  return generation === 'current' ? ['none', 'min_modem', 'max_modem'] : ['min_modem', 'max_modem'];
}

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
  /** Starts installing the newest firmware file on the box; progress and outcome are in the state. */
  installFirmware(): Promise<{ file: string; version: string; bytes: number }>;
}
