/**
 * Phones on the setup AP, from the firmware's own events: the current firmware sends event 306
 * when a station joins its soft AP and 304 when one leaves, each with the station's MAC as text
 * (slave_control.c: softap_event_handler on WIFI_EVENT_AP_STACONNECTED / _STADISCONNECTED, the
 * payload built by ctrl_ntfy_StationConnectedToESPSoftAP / ctrl_ntfy_StationDisconnectFromESPSoftAP).
 * `softap.stations` follows them at once; the GetSoftAPConnectedSTAList poll stays as the check
 * (and gives the signal level, which the events do not carry). The documented firmware sends only
 * 304; there the poll is what finds a phone that joined.
 */
import { isMac } from '../coproc/mac.js';
import type { SoftApStation } from '../device/state.js';
import type { ConnectivityRecord } from './connectivity-record.js';
import type { MachineInput } from './machine.js';

type Listen = (event: string, listener: (...args: never[]) => void) => void;

/** Subscribes through `listen` (the runner's, so they go when it stops). */
export function followSoftApStations(
  listen: Listen,
  record: ConnectivityRecord,
  dispatch: (input: MachineInput) => void,
): void {
  const apply = (stations: SoftApStation[]) => {
    record.phones(stations);
    dispatch({ type: 'softApStations', count: stations.length });
  };
  listen('softApStationConnected', ({ mac }: { mac: string }) => {
    const softap = record.softAp;
    // A failed event (resp ESP_ERR_NO_MEM) comes without a MAC; one after the AP stopped is late.
    if (!softap.active || !isMac(mac) || softap.stations.some((station) => station.mac === mac)) return;
    apply([...softap.stations, { mac, rssi: null }]);
  });
  listen('softApStationDisconnected', ({ mac }: { mac: string }) => {
    const softap = record.softAp;
    if (softap.active && softap.stations.some((station) => station.mac === mac))
      apply(softap.stations.filter((station) => station.mac !== mac));
    // The poll confirms at once (and is what the documented firmware's 304 always asked for).
    dispatch({ type: 'softApStationLeft' });
  });
}
