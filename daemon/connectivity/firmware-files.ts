/**
 * The coprocessor firmware images the owner put on the box: files in `<data dir>/firmware/`
 * (copied there by hand, or saved by the dashboard's upload). The newest valid image is the one
 * offered as the latest version; its description (version, project, chip) is shown in DeviceState
 * `coprocessor.firmware_file`. Files that are not ESP application images are skipped with a log line.
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readFirmwareImage, type FirmwareImageInfo } from '../coproc/firmware-image.js';
import type { Logger } from '../log/logger.js';
import type { CoprocessorRecord } from './coprocessor-record.js';

/** Larger than any ESP32 OTA partition: such a file is not an image for it. */
export const FIRMWARE_FILE_MAX_BYTES = 4 * 1024 * 1024;
/** Where the dashboard's upload is kept (replaced by the next upload). */
const UPLOAD_NAME = 'uploaded.bin';

export interface FirmwareFile {
  name: string;
  image: Uint8Array;
  info: FirmwareImageInfo;
}

export interface FirmwareFilesOptions {
  /** `<data dir>/firmware`; null when the box keeps no firmware files. */
  dir: string | null;
  /** Where the newest image is shown (`coprocessor.firmware_file`). */
  coprocessor: Pick<CoprocessorRecord, 'firmwareFile'>;
  log: Logger;
}

export class FirmwareFiles {
  constructor(private readonly options: FirmwareFilesOptions) {}

  /** Looks at the folder again and shows the newest image in DeviceState. */
  async refresh(): Promise<FirmwareFile | null> {
    const latest = await this.latest();
    this.options.coprocessor.firmwareFile(
      latest
        ? { version: latest.info.version, project: latest.info.project, name: latest.name, bytes: latest.image.length }
        : null,
    );
    return latest;
  }

  /** The newest valid image (by modification time), read now. */
  async latest(): Promise<FirmwareFile | null> {
    const { dir, log } = this.options;
    if (!dir) return null;
    const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') log.warn('firmware folder not readable', { dir, error: error.message });
      return [] as string[];
    });
    const candidates: Array<{ name: string; mtime: number }> = [];
    for (const name of names) {
      if (!name.endsWith('.bin')) continue;
      const info = await stat(join(dir, name)).catch(() => null);
      if (info?.isFile() && info.size <= FIRMWARE_FILE_MAX_BYTES) candidates.push({ name, mtime: info.mtimeMs });
    }
    candidates.sort((a, b) => b.mtime - a.mtime || a.name.localeCompare(b.name));
    for (const { name } of candidates) {
      const bytes = await readFile(join(dir, name)).catch(() => null);
      const image = bytes ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) : null;
      const info = image ? readFirmwareImage(image) : null;
      if (image && info) return { name, image, info };
      log.warn('firmware file skipped: not an ESP application image with a version', { file: name });
    }
    return null;
  }

  /**
   * Keeps an uploaded image as the newest file (written whole, then renamed into place). A full
   * disk only costs the copy: the upload itself goes on, so this logs instead of throwing.
   */
  async save(image: Uint8Array): Promise<void> {
    const { dir, log } = this.options;
    if (!dir) return;
    const partial = join(dir, `.${UPLOAD_NAME}.partial`);
    try {
      await mkdir(dir, { recursive: true });
      await writeFile(partial, image);
      await rename(partial, join(dir, UPLOAD_NAME));
    } catch (error) {
      log.warn('uploaded firmware not kept on the box', { error: (error as Error).message });
      await rm(partial, { force: true }).catch(() => undefined);
    }
    await this.refresh();
  }
}
