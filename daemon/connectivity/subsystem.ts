/**
 * The connectivity subsystem as the composition root starts it: the manager over the link's
 * client, its setup-AP passphrase, and the captive DNS when the soft-AP address is configured.
 */
import type { Config } from '../config.js';
import type { CoprocClientApi } from '../coproc/api.js';
import type { DeviceState } from '../device/state.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import type { Db } from '../store/db.js';
import { getSetting, setSetting } from '../store/settings.js';
import { CaptiveDns, captiveDnsDuringSetup } from './captive-dns.js';
import { OtaUpdate } from '../coproc/ota.js';
import { ConnectivityManager, type FirmwareUpdater, type StationNetwork } from './manager.js';
import type { NetworksRepo } from './networks-repo.js';
import { policyFromConfig } from './policy.js';
import { loadSetupPassphrase } from './setup-identity.js';

export interface ConnectivityParts {
  client: CoprocClientApi;
  config: Config;
  db: Db;
  device: DeviceState;
  networks: NetworksRepo;
  log: Logger;
  health: (health: ComponentHealth) => void;
  /** Default: the OTA engine over the same client. */
  firmware?: FirmwareUpdater | null;
  /** The network layer's station (NESTBOX_NETWORK=on); it also runs the captive DNS then. */
  station?: StationNetwork | null;
}

export async function startConnectivitySubsystem(parts: ConnectivityParts): Promise<{ manager: ConnectivityManager; stop: () => Promise<void> }> {
  const { config, db, log } = parts;
  const setupPassphrase = await loadSetupPassphrase(db, config.setupPassphrase);
  const manager = new ConnectivityManager({
    client: parts.client, device: parts.device, networks: parts.networks, policy: policyFromConfig(config),
    settings: { get: (key) => getSetting(db, key), set: (key, value) => setSetting(db, key, value) },
    setupPassphrase, log, health: parts.health, station: parts.station ?? null, firmware: parts.firmware === undefined ? otaFirmwareUpdater(parts.client) : parts.firmware,
  });
  // Shown on purpose, once: the owner needs it to join the setup AP (it is also on the dashboard).
  log.info('setup access point key (WPA2) for joining the box in setup mode', {
    setup_key: setupPassphrase, source: config.setupPassphrase ? 'NESTBOX_SETUP_PASSPHRASE' : 'generated for this device',
  });
  await manager.start();
  let stopDns: () => Promise<void> = async () => undefined;
  if (config.setupApAddress && config.network === 'off') {
    const dns = new CaptiveDns({ address: config.setupApAddress, port: config.setupDnsPort, log: log.child({ part: 'captive-dns' }) });
    stopDns = captiveDnsDuringSetup(parts.device, dns, log);
  }
  return {
    manager,
    async stop() {
      await stopDns();
      await manager.stop();
    },
  };
}

/** The OTA engine as the connectivity manager drives it: progress in bytes after every chunk. */
export function otaFirmwareUpdater(client: CoprocClientApi): FirmwareUpdater {
  return {
    async update(image, progress) {
      const ota = new OtaUpdate(client);
      ota.on('progress', ({ bytes, total }) => progress(bytes, total));
      await ota.run(image);
    },
  };
}
