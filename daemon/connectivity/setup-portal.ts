/**
 * The setup portal's side of connectivity, what /setup/api/* calls: the list of networks in range,
 * a network a person submits, the status page's answer, and whether the portal may answer without
 * login (setup mode). A request from the setup AP's side counts as "portal in use", which keeps the
 * AP up while a person is at it; the runner hears of it and of every submitted network.
 */
import type { ScannedNetwork } from '../device/commands.js';
import type { DeviceState, DeviceStateData } from '../device/state.js';
import type { Logger } from '../log/logger.js';
import { describeFailure, type ConnectFailure } from './failures.js';
import { ssidText, type NetworkInput } from './network-input.js';
import type { NetworksRepo, SavedNetwork } from './networks-repo.js';
import type { RecentScan } from './recent-scan.js';
import type { ConnectivityRunner } from './runner.js';

export interface SetupStatus {
  state: DeviceStateData['connectivity'];
  ssid: string | null;
  error: ConnectFailure | null;
  error_description: string | null;
  setup_ap: { active: boolean; ssid: string | null; reason: string | null };
}

export interface SetupPortalOptions {
  runner: ConnectivityRunner;
  networks: NetworksRepo;
  scan: RecentScan;
  device: DeviceState;
  /** The setup AP's WPA2 key: on the box's label and the dashboard (and MQTT, when allowed); the first run takes it as proof of holding the box. */
  setupPassphrase: string;
  log: Logger;
}

export class SetupPortal {
  constructor(private readonly options: SetupPortalOptions) {}

  get apName(): string {
    return this.options.runner.setupApName;
  }
  get passphrase(): string {
    return this.options.setupPassphrase;
  }

  /** The last scan, without asking the device (a refresh is the scan command). */
  scanList(): ScannedNetwork[] {
    return this.options.scan.networks();
  }

  /** Saves what a person typed (at the top of the list) and tries it at once; the AP stays up. */
  async submitNetwork(input: NetworkInput): Promise<SavedNetwork> {
    const network = await this.options.networks.save(input, true);
    this.options.log.info('network submitted', { ssid: ssidText(network.ssid), hidden: network.hidden });
    this.options.runner.tryNetwork(network);
    return network;
  }

  status(): SetupStatus {
    const { phase, failure, setupReason, target } = this.options.runner.status();
    const state = this.options.device.get();
    const ssid = target ? ssidText(target.ssid) : state.wifi.ssid;
    return {
      state: phase,
      ssid,
      error: failure,
      error_description: failure ? describeFailure(failure, ssid) : null,
      setup_ap: { active: state.softap.active, ssid: state.softap.ssid ?? this.apName, reason: setupReason },
    };
  }

  /** A request to the portal came from the AP side: a person is setting the box up. */
  portalUsed(): void {
    this.options.runner.portalUsed();
  }

  /** The portal answers without login only while this is true. */
  inSetupMode(): boolean {
    return this.options.device.get().softap.active || this.options.runner.phase === 'setup_ap';
  }
}
