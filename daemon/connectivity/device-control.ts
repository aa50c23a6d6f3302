/**
 * The device commands the outputs may give (MQTT and the owner's web API): scan, setup mode,
 * transmit power, power save, coprocessor restart. Radio settings and scans run in the shared line
 * of device operations; whatever the state machine must know about (setup mode, a restart) goes
 * through the runner's inputs, so the machine is never bypassed.
 */
import type { CoprocClientApi } from '../coproc/api.js';
import type { DeviceCommands, PowerSaveMode, ScannedNetwork } from '../device/commands.js';
import type { Logger } from '../log/logger.js';
import { CommandError, deviceLostError, radioSettingError } from './command-error.js';
import type { CoprocessorRecord } from './coprocessor-record.js';
import type { DeviceOperations } from './device-operations.js';
import type { FirmwareInstall, FirmwareUpdate } from './firmware-update.js';
import { describeDeviceError } from './device-operations.js';
import type { RadioSettings } from './radio-settings.js';
import type { RecentScan } from './recent-scan.js';
import type { ConnectivityRunner } from './runner.js';

export interface DeviceControlOptions {
  client: CoprocClientApi;
  /** Where an applied radio setting is shown. */
  coprocessor: Pick<CoprocessorRecord, 'radioApplied'>;
  runner: ConnectivityRunner;
  operations: DeviceOperations;
  scan: RecentScan;
  radio: RadioSettings;
  firmware: FirmwareUpdate;
  log: Logger;
}

const POWER_SAVE_MODES: readonly PowerSaveMode[] = ['none', 'min_modem', 'max_modem'];

export class DeviceControl implements DeviceCommands {
  constructor(private readonly options: DeviceControlOptions) {}

  async scan(): Promise<ScannedNetwork[]> {
    this.requireDevice();
    const { operations, scan } = this.options;
    await operations
      .run(() => scan.scan())
      .catch((error) => {
        throw new CommandError('device', `The scan failed: ${describeDeviceError(error)}`);
      });
    return scan.networks();
  }

  async enterSetupMode(): Promise<void> {
    this.options.log.info('setup mode asked');
    this.options.runner.enterSetupMode();
  }

  async setTxPower(dbm: number): Promise<number> {
    if (typeof dbm !== 'number' || !Number.isFinite(dbm) || dbm < 2 || dbm > 21) {
      throw new CommandError('invalid', 'Transmit power is a number of dBm from 2 to 21');
    }
    const { client, radio } = this.options;
    const applied = await this.applyRadioSetting('Transmit power', async () => {
      await client.setMaxTxPower(dbm);
      return client.getTxPower();
    });
    await radio.rememberTxPower(dbm);
    this.options.coprocessor.radioApplied({ tx_power_dbm: applied });
    this.options.log.info('transmit power set', { asked_dbm: dbm, applied_dbm: applied });
    return applied;
  }

  async setPowerSave(mode: PowerSaveMode): Promise<void> {
    if (!POWER_SAVE_MODES.includes(mode))
      throw new CommandError('invalid', `Power save is one of ${POWER_SAVE_MODES.join(', ')}`);
    const { client, radio } = this.options;
    const applied = await this.applyRadioSetting('Power save', async () => {
      await client.setPowerSave(mode);
      return client.getPowerSave();
    });
    await radio.rememberPowerSave(mode);
    this.options.coprocessor.radioApplied({ power_save: applied });
    this.options.log.info('power save set', { mode: applied });
  }

  async restartCoprocessor(): Promise<void> {
    await this.options.runner.restartDevice();
  }

  installFirmware(): Promise<FirmwareInstall> {
    return this.options.firmware.installLatest();
  }

  /** Sets and reads back a radio setting in line with the other device operations. */
  private async applyRadioSetting<T>(what: string, apply: () => Promise<T>): Promise<T> {
    this.requireDevice();
    return this.options.operations.run(apply).catch((error) => {
      throw radioSettingError(what, error);
    });
  }

  private requireDevice(): void {
    if (this.options.runner.deviceLost) throw deviceLostError();
  }
}
