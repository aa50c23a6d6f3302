/**
 * The simulated chip's OTA: OTABegin erases the partition (a scratch file), OTAWrite fills it,
 * OTAEnd verifies the image and reboots into it — the new image's version is what the current
 * firmware reports after that reboot.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import type { Body } from '../codec.js';
import { PROJECT_OFFSET, readFirmwareImage, TEXT_BYTES } from '../firmware-image.js';
import { fail, ok, SIM_TIMING, type Chip, type Reply } from './chip.js';

const OTA_PARTITION_BYTES = 0x200000;
const ESP_IMAGE_MAGIC = 0xe9;
const APP_DESC_END = PROJECT_OFFSET + TEXT_BYTES;

export interface FirmwareVersionParts {
  name: string;
  parts: number[];
}

export class SimOta {
  /** Bytes of the last image that passed OTAEnd. */
  lastImageBytes = 0;
  private writing: { fd: number; bytes: number } | null = null;
  private nextVersion: FirmwareVersionParts | null = null;

  constructor(
    private readonly chip: Chip,
    /** Where images are written (a scratch file). */
    readonly path: string,
    /** Reboots the chip into the image that passed OTAEnd. */
    private readonly reboot: () => void,
  ) {}

  get active(): boolean {
    return this.writing !== null;
  }

  get bytes(): number {
    return this.writing?.bytes ?? 0;
  }

  async begin(): Promise<Reply> {
    const epoch = this.chip.epoch;
    this.abort();
    await this.chip.clock.sleep(SIM_TIMING.otaEraseMs);
    if (epoch !== this.chip.epoch) return null;
    try {
      this.writing = { fd: openSync(this.path, 'w'), bytes: 0 };
    } catch {
      return fail();
    }
    return ok();
  }

  write(b: Body | null): Reply {
    const data = (b?.ota_data as Uint8Array | undefined) ?? new Uint8Array();
    if (!this.writing) return fail();
    if (this.writing.bytes + data.length > OTA_PARTITION_BYTES) return fail();
    writeSync(this.writing.fd, data);
    this.writing.bytes += data.length;
    return ok();
  }

  end(): Reply {
    const ota = this.writing;
    if (!ota) return fail();
    this.writing = null;
    const head = Buffer.alloc(APP_DESC_END);
    closeSync(ota.fd);
    const fd = openSync(this.path, 'r');
    const read = readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    if (read === 0 || head[0] !== ESP_IMAGE_MAGIC) return fail(); // esp_ota_end: image does not verify
    this.lastImageBytes = ota.bytes;
    this.nextVersion = versionOfImage(head.subarray(0, read));
    this.chip.clock.after(SIM_TIMING.otaRebootMs, this.reboot);
    return ok();
  }

  /** The version of the image that passed OTAEnd, once (at the reboot into it); null when none did. */
  takeNextVersion(): FirmwareVersionParts | null {
    const next = this.nextVersion;
    this.nextVersion = null;
    return next;
  }

  abort(): void {
    if (!this.writing) return;
    try {
      closeSync(this.writing.fd);
    } catch {
      /* already closed */
    }
    this.writing = null;
  }
}

/** "FG-1.2.0.0.0" in the image's description → the parts GetFwVersion answers; null for another form. */
function versionOfImage(head: Uint8Array): FirmwareVersionParts | null {
  const match = /^([A-Za-z]{1,8})-(\d+)\.(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(readFirmwareImage(head)?.version ?? '');
  return match ? { name: match[1], parts: match.slice(2).map(Number) } : null;
}
