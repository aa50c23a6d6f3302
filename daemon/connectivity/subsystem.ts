/**
 * The connectivity subsystem assembled: one line of device operations, the recent scan and the
 * owner's radio settings shared by the parts, then the machine runner, the setup portal, the
 * device commands and the firmware update, each built with what it needs. The composition root
 * starts it with `startConnectivitySubsystem` (setup-AP passphrase, captive DNS); tests that bring
 * their own device and clock build the parts with `buildConnectivity`.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { CoprocClientApi } from '../coproc/api.js';
import type { DeviceState } from '../device/state.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import type { Db } from '../store/db.js';
import { getSetting, setSetting } from '../store/settings.js';
import { CaptiveDns, captiveDnsDuringSetup } from './captive-dns.js';
import type { ChipInterfaces } from './chip-interfaces.js';
import { ConnectivityRecord } from './connectivity-record.js';
import { CoprocessorRecord } from './coprocessor-record.js';
import { DeviceControl } from './device-control.js';
import { DeviceOperations } from './device-operations.js';
import { FirmwareFiles } from './firmware-files.js';
import { FirmwareUpdate, otaFirmwareUpdater, type FirmwareUpdater } from './firmware-update.js';
import type { NetworksRepo } from './networks-repo.js';
import { policyFromConfig } from './policy.js';
import { RadioSettings, type DeviceSettingsStore } from './radio-settings.js';
import { RecentScan } from './recent-scan.js';
import { ConnectivityRunner, type ConnectivityRunnerOptions, type StationNetwork } from './runner.js';
import { SetupPortal } from './setup-portal.js';
import { ChipRecovery, RESET_WINDOW_MS } from './chip-recovery.js';
import { ReleaseCheck } from './release-check.js';
import { realClock } from './clock.js';
import type { ChipResetter } from '../coproc/chip-reset.js';
import { loadSetupPassphrase, rememberSetupApName } from './setup-identity.js';
import { databaseOutage } from '../store/outage.js';

/** The parts as the outputs use them: web routes, MQTT commands. */
export interface ConnectivityParts {
  /** A box's device side (`device-side.ts`: the other kind is an instance without one). */
  kind: 'box';
  runner: ConnectivityRunner;
  recovery: ChipRecovery;
  portal: SetupPortal;
  commands: DeviceControl;
  firmware: FirmwareUpdate;
  firmwareFiles: FirmwareFiles;
}

/** What the runner needs from outside, plus the owner's settings store and the OTA engine. */
export type ConnectivityOptions = Omit<
  ConnectivityRunnerOptions,
  'coprocessor' | 'record' | 'operations' | 'scan' | 'radio' | 'firmwareSeen'
> & {
  settings: DeviceSettingsStore;
  firmware: FirmwareUpdater | null;
  /** The owner's firmware files (`<data dir>/firmware`); absent or null: none. */
  firmwareDir?: string | null;
  /** The driver's release (NESTBOX_ESP_HOSTED_RELEASE); null or absent: not checked. */
  driverRelease?: string | null;
  /** Where the release check reports (/healthz `firmware_release`). */
  releaseHealth?: (health: ComponentHealth) => void;
  /** How a lost chip is reset; absent: never (a loss is only logged). */
  reset?: ChipResetPolicy | null;
};

/** The chip reset as the configuration asks for it (times in real ms, already time-scaled). */
export interface ChipResetPolicy {
  resetter: ChipResetter | null;
  afterMs: number;
  windowMs: number;
}

export function buildConnectivity(options: ConnectivityOptions): ConnectivityParts {
  const { settings, firmware: updater, firmwareDir, driverRelease, releaseHealth, reset, ...runnerOptions } = options;
  const { client, device, networks, log } = options;
  const operations = new DeviceOperations();
  const coprocessor = new CoprocessorRecord(device);
  const scan = new RecentScan(client, log, device);
  const radio = new RadioSettings(settings, log);
  const release = new ReleaseCheck({ driver: driverRelease ?? null, coprocessor, log, health: releaseHealth });
  const recovery = new ChipRecovery({
    resetter: reset?.resetter ?? null,
    afterMs: reset?.afterMs ?? Infinity,
    windowMs: reset?.windowMs ?? RESET_WINDOW_MS,
    coprocessor,
    log: log.child({ part: 'chip-recovery' }),
    clock: options.clock ?? realClock,
  });
  const runner = new ConnectivityRunner({
    ...runnerOptions,
    coprocessor,
    record: new ConnectivityRecord(device),
    operations,
    scan,
    radio,
    firmwareSeen: (version, generation) => release.firmwareSeen(version, generation),
    // The runner reports its health after every step: the moment to see whether the chip is lost.
    health: (health) => {
      options.health?.(health);
      recovery.observe(runner.deviceLost);
    },
  });
  const firmwareFiles = new FirmwareFiles({ dir: firmwareDir ?? null, coprocessor, log });
  const firmware = new FirmwareUpdate({
    updater,
    coprocessor,
    runner,
    operations,
    files: firmwareFiles,
    log,
    driverRelease: driverRelease ?? null,
  });
  return {
    kind: 'box',
    runner,
    recovery,
    portal: new SetupPortal({ runner, networks, scan, device, setupPassphrase: options.setupPassphrase, log }),
    commands: new DeviceControl({ client, coprocessor, runner, operations, scan, radio, firmware, log }),
    firmware,
    firmwareFiles,
  };
}

export interface ConnectivitySubsystemOptions {
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
  /** How this link resets a lost chip (null: it cannot); the timings come from the config. */
  resetter?: ChipResetter | null;
  /** Where the firmware release check reports (/healthz `firmware_release`). */
  releaseHealth?: (health: ComponentHealth) => void;
  /** The network layer, told the chip's MACs after every (re)initialisation (NESTBOX_NETWORK=on). */
  chipInterfaces?: ChipInterfaces | null;
}

export async function startConnectivitySubsystem(
  parts: ConnectivitySubsystemOptions,
): Promise<{ connectivity: ConnectivityParts; stop: () => Promise<void> }> {
  const { config, db, log } = parts;
  const setupPassphrase = await loadSetupPassphrase(db, config.setupPassphrase);
  const connectivity = buildConnectivity({
    client: parts.client,
    device: parts.device,
    networks: parts.networks,
    policy: policyFromConfig(config),
    settings: { get: (key) => getSetting(db, key), set: (key, value) => setSetting(db, key, value) },
    setupPassphrase,
    log,
    health: parts.health,
    station: parts.station ?? null,
    chipInterfaces: parts.chipInterfaces ?? null,
    firmware: parts.firmware === undefined ? otaFirmwareUpdater(parts.client) : parts.firmware,
    firmwareDir: join(config.dataDir, 'firmware'),
    driverRelease: config.espHostedRelease,
    releaseHealth: parts.releaseHealth,
    reset: chipResetPolicy(config, parts.resetter ?? null),
    outage: databaseOutage(db),
  });
  await connectivity.firmwareFiles.refresh();
  // Never the key itself: the owner reads it on the label (npm run admin -- label) or the dashboard.
  log.info('setup access point key ready', {
    source: config.setupPassphrase ? 'NESTBOX_SETUP_PASSPHRASE' : 'generated for this device',
  });
  const forgetApName = rememberSetupApName(db, parts.device, log);
  await connectivity.runner.start();
  let stopDns: () => Promise<void> = async () => undefined;
  if (config.setupApAddress && config.network === 'off') {
    const dns = new CaptiveDns({
      address: config.setupApAddress,
      port: config.setupDnsPort,
      log: log.child({ part: 'captive-dns' }),
    });
    stopDns = captiveDnsDuringSetup(parts.device, dns, log);
  }
  return {
    connectivity,
    async stop() {
      forgetApName();
      connectivity.recovery.stop();
      await stopDns();
      await connectivity.runner.stop();
    },
  };
}

/** NESTBOX_COPROC_RESET_AFTER_S (0: never) and the 10-minute window, both on the device's time scale. */
export function chipResetPolicy(config: Config, resetter: ChipResetter | null): ChipResetPolicy | null {
  if (config.coprocResetAfterS === 0) return null;
  return {
    resetter,
    afterMs: (config.coprocResetAfterS * 1000) / config.coprocTimeScale,
    windowMs: RESET_WINDOW_MS / config.coprocTimeScale,
  };
}
