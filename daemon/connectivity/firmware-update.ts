/**
 * The coprocessor firmware update (OTA) as the owner starts it: one at a time, only while the
 * device answers, written in the shared line of device operations so nothing else talks to the
 * radio meanwhile. Progress goes to DeviceState and out as ota_progress events (through the
 * coprocessor record, which marks it done when the rebooted device has been initialised again).
 */
import type { CoprocClientApi } from '../coproc/api.js';
import { OtaUpdate } from '../coproc/ota.js';
import { imageReleaseRefusal } from '../coproc/release.js';
import type { Logger } from '../log/logger.js';
import { CommandError, deviceLostError } from './command-error.js';
import type { CoprocessorRecord } from './coprocessor-record.js';
import { describeDeviceError, type DeviceOperations } from './device-operations.js';
import type { FirmwareFiles } from './firmware-files.js';
import type { ConnectivityRunner } from './runner.js';

/** The coprocessor firmware update engine (daemon/coproc/ota.ts), as this module drives it. */
export interface FirmwareUpdater {
  /** OTABegin, OTAWrite in chunks, OTAEnd; `progress` after every chunk. The device reboots after. */
  update(image: Uint8Array, progress: (written: number, total: number) => void): Promise<void>;
}

export interface FirmwareUpdateOptions {
  /** null when the link cannot carry an update: every request then answers `unavailable`. */
  updater: FirmwareUpdater | null;
  /** Where the chip is read and the progress shown. */
  coprocessor: Pick<CoprocessorRecord, 'get' | 'ota' | 'otaProgressed'>;
  runner: ConnectivityRunner;
  operations: DeviceOperations;
  /** The owner's firmware files, the source of an install asked without an image. */
  files: FirmwareFiles;
  log: Logger;
  /** The driver's release (NESTBOX_ESP_HOSTED_RELEASE): an image of another one is refused unless forced. */
  driverRelease?: string | null;
}

export interface StartOptions {
  /** Write an image of another release than the driver's anyway (the owner rebuilds the driver). */
  force?: boolean;
}

/** What an install of the newest firmware file started with. */
export interface FirmwareInstall {
  file: string;
  version: string;
  bytes: number;
}

export class FirmwareUpdate {
  private running = false;

  constructor(private readonly options: FirmwareUpdateOptions) {}

  /** Installs the newest firmware file on the box (Home Assistant's Install); returns once started. */
  async installLatest(): Promise<FirmwareInstall> {
    const file = await this.options.files.refresh();
    if (!file)
      throw new CommandError(
        'invalid',
        'There is no firmware file on the box: put one in the firmware folder of the data directory or upload it on the dashboard',
      );
    const chip = this.options.coprocessor.get().chip;
    if (chip && file.info.chip && chip !== file.info.chip)
      throw new CommandError('invalid', `${file.name} is built for ${file.info.chip}, but the coprocessor is ${chip}`);
    await this.start(file.image);
    return { file: file.name, version: file.info.version, bytes: file.image.length };
  }

  /**
   * Starts writing `image` and returns at once; the outcome is in DeviceState `coprocessor.ota`.
   * An image of another release than the driver's is refused before anything is written.
   */
  async start(image: Uint8Array, options: StartOptions = {}): Promise<void> {
    const { updater, coprocessor, runner, operations, log, driverRelease } = this.options;
    if (!updater) throw new CommandError('unavailable', 'Firmware updates are not available on this link');
    const refusal = driverRelease ? imageReleaseRefusal(image, driverRelease) : null;
    if (refusal && !options.force) throw new CommandError('invalid', refusal);
    if (refusal) log.warn("firmware of another release than the driver written on the owner's demand", { refusal });
    if (this.running) throw new CommandError('busy', 'A firmware update is already running');
    if (runner.deviceLost) throw deviceLostError();
    this.running = true;
    const total = image.length;
    let lastPercent = -1;
    const progress = (written: number) => {
      const percent = Math.floor((written / total) * 100);
      coprocessor.ota({ phase: 'writing', bytes: written, total, percent, error: null });
      if (percent !== lastPercent) coprocessor.otaProgressed({ bytes: written, total, percent });
      lastPercent = percent;
    };
    progress(0);
    log.info('coprocessor firmware update started', { bytes: total });
    void operations
      .run(() => updater.update(image, progress))
      .then(
        () => {
          coprocessor.ota({ phase: 'rebooting', bytes: total, total, percent: 100, error: null });
          log.info('coprocessor firmware written; the device reboots');
        },
        (error) => {
          const { bytes, percent } = coprocessor.get().ota;
          coprocessor.ota({ phase: 'failed', bytes, total, percent, error: describeDeviceError(error) });
          log.warn('coprocessor firmware update failed', { error: describeDeviceError(error) });
        },
      )
      .finally(() => {
        this.running = false;
      });
  }
}

/** The link's OTA engine over `client`, reporting progress in bytes after every chunk. */
export function otaFirmwareUpdater(client: CoprocClientApi): FirmwareUpdater {
  return {
    async update(image, progress) {
      const ota = new OtaUpdate(client);
      ota.on('progress', ({ bytes, total }) => progress(bytes, total));
      await ota.run(image);
    },
  };
}
