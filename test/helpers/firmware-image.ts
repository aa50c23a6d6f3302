/** ESP-IDF application images with a given description, for the firmware tests. */
import {
  APP_DESC_MAGIC,
  APP_DESC_OFFSET,
  CHIP_ID_OFFSET,
  IMAGE_MAGIC,
  PROJECT_OFFSET,
  TEXT_BYTES,
  VERSION_OFFSET,
} from '../../daemon/coproc/firmware-image.js';

/** A minimal application image with that description ; the rest up to `bytes` is 0xFF like erased flash. */
export function buildFirmwareImage(info: {
  version: string;
  project?: string;
  chipId?: number;
  bytes?: number;
}): Uint8Array {
  const size = Math.max(info.bytes ?? 0, PROJECT_OFFSET + TEXT_BYTES + 64);
  const image = Buffer.alloc(size, 0xff);
  image.fill(0, 0, PROJECT_OFFSET + TEXT_BYTES + 64);
  image[0] = IMAGE_MAGIC;
  image[1] = 1;
  image.writeUInt16LE(info.chipId ?? 0, CHIP_ID_OFFSET);
  image.writeUInt32LE(APP_DESC_MAGIC, APP_DESC_OFFSET);
  image.write(info.version.slice(0, TEXT_BYTES - 1), VERSION_OFFSET, 'latin1');
  image.write((info.project ?? 'network_adapter').slice(0, TEXT_BYTES - 1), PROJECT_OFFSET, 'latin1');
  return new Uint8Array(image.buffer, image.byteOffset, image.length);
}
