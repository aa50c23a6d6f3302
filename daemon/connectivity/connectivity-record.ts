/**
 * The one writer of DeviceState's `connectivity`, `error`, `wifi` and `softap` sections: what the
 * box's radio is doing, as the connectivity subsystem learns it. The runner tells it the machine's
 * phase; the runner's operations tell it what the device said (the initialisation, a join, a drop,
 * the soft AP started or stopped, the mode read back); the soft AP's station events and polls tell
 * it the phones on the setup AP. Each happening is one patch, so the outputs see it whole (the soft
 * AP and the mode it put the radio in change together).
 */
import type { WifiModeName } from '../coproc/api.js';
import type { Connectivity, DeviceState, SoftApState, SoftApStation, WifiState } from '../device/state.js';

/** Where the station is joined, as the device reads it back (GetAPConfig). */
export type StationPlace = Pick<WifiState, 'ssid' | 'bssid' | 'rssi' | 'channel'>;

const NO_STATION: StationPlace = { ssid: null, bssid: null, rssi: null, channel: null };

export interface InitialisedRadio {
  mac: string;
  mode: WifiModeName;
  /** Where the station already is; null when it is not joined. */
  station: StationPlace | null;
  /** The soft AP's name when it is up after the initialisation; null when it is down. */
  softAp: string | null;
}

export class ConnectivityRecord {
  constructor(private readonly device: DeviceState) {}

  get wifi(): Readonly<WifiState> {
    return this.device.get().wifi;
  }

  get softAp(): Readonly<SoftApState> {
    return this.device.get().softap;
  }

  /** The machine's phase, the last failure in words and why setup mode is on (all null when none). */
  phase(connectivity: Connectivity, error: string | null, setupReason: string | null): void {
    this.device.update({ connectivity, error, softap: { reason: setupReason } });
  }

  /** An initialisation went through: the MAC, the mode, and where station and soft AP are. */
  initialised(radio: InitialisedRadio): void {
    this.device.update({
      wifi: { mac: radio.mac, mode: radio.mode, ...(radio.station ?? NO_STATION) },
      softap: radio.softAp !== null ? { active: true, ssid: radio.softAp } : { active: false, stations: [] },
    });
  }

  /** The station joined a network. */
  joined(station: StationPlace): void {
    this.device.update({ wifi: station });
  }

  /** The station is not joined (an attempt failed, or it was dropped). */
  stationGone(): void {
    this.device.update({ wifi: NO_STATION });
  }

  /** The mode the device reports after a change of its own or ours; undefined: not read. */
  mode(mode: WifiModeName | undefined): void {
    this.device.update({ wifi: { mode } });
  }

  softApStarted(softAp: { ssid: string; channel: number }, mode: WifiModeName | undefined): void {
    this.device.update({ softap: { active: true, ...softAp, stations: [] }, wifi: { mode } });
  }

  softApStopped(mode: WifiModeName | undefined): void {
    this.device.update({ softap: { active: false, channel: null, stations: [] }, wifi: { mode } });
  }

  /** The phones on the setup AP, as the device lists them or its events tell. */
  phones(stations: SoftApStation[]): void {
    this.device.update({ softap: { stations } });
  }
}
