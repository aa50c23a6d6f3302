/**
 * The setup access point's operations as the runner carries them out for the machine: start it on
 * the channel of the likely home network, stop it, and poll the phones on it. They tell the
 * connectivity record the soft AP and the mode the device reports after each, and report the
 * outcome to the machine through `report`.
 */
import type { CoprocClientApi, WifiModeName } from '../coproc/api.js';
import { CoprocError } from '../coproc/api.js';
import type { Logger } from '../log/logger.js';
import type { ConnectivityClock } from './clock.js';
import type { ConnectivityRecord } from './connectivity-record.js';
import {
  describeDeviceError,
  logDeviceFailure,
  type DeviceOperations,
  type EpochCurrent,
} from './device-operations.js';
import type { FirmwareModel } from './firmware-model.js';
import type { MachineInput } from './machine.js';
import type { NetworksRepo } from './networks-repo.js';
import type { RecentScan } from './recent-scan.js';
import { pickSetupChannel } from './scan-list.js';
import { setupApSsid } from './setup-identity.js';

export interface SetupApOperationsOptions {
  client: CoprocClientApi;
  record: ConnectivityRecord;
  networks: NetworksRepo;
  scan: RecentScan;
  operations: DeviceOperations;
  firmware: FirmwareModel;
  setupPassphrase: string;
  clock: ConnectivityClock;
  log: Logger;
  /** The machine's input for an operation's outcome. */
  report: (input: MachineInput) => void;
  isCurrent: EpochCurrent;
}

const SOFT_AP_FAILURE = { failed: 'setup access point did not start', cutShort: 'setup access point start cut short' };

export class SetupApOperations {
  private ssid = setupApSsid(null);

  constructor(private readonly options: SetupApOperationsOptions) {}

  /** The setup AP's name: derived from the station MAC once the device has told it. */
  get name(): string {
    return this.ssid;
  }

  /** The device told its station MAC. */
  named(mac: string): void {
    this.ssid = setupApSsid(mac);
  }

  async start(epoch: number): Promise<void> {
    const { client, record, networks, scan, log, report } = this.options;
    try {
      // The AP takes the channel of the likely home network (from the last scan), so joining it
      // later does not move the radio under the phone. With a scan at hand it starts at once and
      // a fresh scan follows; on first boot it scans first.
      const scanned = scan.entries.length > 0;
      if (!scanned) await scan.refresh();
      const saved = (await networks.list()).map((network) => network.ssid);
      const channel = pickSetupChannel(scan.entries, saved);
      await client.startSoftAp({
        ssid: this.ssid,
        password: this.options.setupPassphrase,
        channel,
        security: 'wpa2_psk',
        maxConnections: 4,
        ssidHidden: false,
        bandwidth: 'ht20',
      });
      const mode = await this.readMode();
      this.options.firmware.observe({ type: 'modeAfterSoftAp', mode, at: this.options.clock.now() });
      record.softApStarted({ ssid: this.ssid, channel }, mode);
      log.info('setup access point started', { ssid: this.ssid, channel, security: 'wpa2_psk' });
      report({ type: 'softApResult', epoch, started: true, ok: true });
      if (scanned) void this.options.operations.run(() => scan.refresh());
    } catch (error) {
      const described = describeDeviceError(error);
      logDeviceFailure(log, this.options.isCurrent(epoch), SOFT_AP_FAILURE, { error: described });
      report({ type: 'softApResult', epoch, started: true, ok: false, error: described });
    }
  }

  async stop(epoch: number): Promise<void> {
    const { client, record, log, report } = this.options;
    try {
      await client.stopSoftAp();
    } catch (error) {
      // resp −1 means "not started": it is down either way.
      if (!(error instanceof CoprocError && error.kind === 'device')) {
        report({ type: 'softApResult', epoch, started: false, ok: false, error: describeDeviceError(error) });
        return;
      }
    }
    const mode = await this.readMode();
    record.softApStopped(mode);
    log.info('setup access point stopped');
    report({ type: 'softApResult', epoch, started: false, ok: true });
  }

  async pollStations(): Promise<void> {
    try {
      const stations = await this.options.client.softApStations();
      this.options.record.phones(stations.map((station) => ({ mac: station.mac, rssi: station.rssi })));
      this.options.report({ type: 'softApStations', count: stations.length });
    } catch (error) {
      this.options.log.debug('soft AP station list not read', { error: describeDeviceError(error) });
    }
  }

  /**
   * The device's own word on its mode: starting or stopping the soft AP changes it (the current
   * firmware goes AP-only when the station is not connected), so the state never guesses.
   */
  private async readMode(): Promise<WifiModeName | undefined> {
    try {
      return await this.options.client.getMode();
    } catch (error) {
      this.options.log.debug('Wi-Fi mode not read', { error: describeDeviceError(error) });
      return undefined;
    }
  }
}
