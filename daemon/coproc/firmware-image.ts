/**
 * What an ESP-IDF application image says about itself: the image header (esp_image_header_t,
 * 24 bytes: magic 0xE9, the chip id at byte 12) and, right after the first segment header (8
 * bytes), the application description (esp_app_desc_t: magic 0xABCD5432, then the version and the
 * project name as NUL-terminated 32-byte fields). ESP-IDF puts the description first in every app.
 */
export const IMAGE_MAGIC = 0xe9;
export const APP_DESC_OFFSET = 24 + 8;
export const APP_DESC_MAGIC = 0xabcd5432;
export const VERSION_OFFSET = APP_DESC_OFFSET + 16;
export const PROJECT_OFFSET = VERSION_OFFSET + 32;
export const TEXT_BYTES = 32;
export const CHIP_ID_OFFSET = 12;

/** esp_chip_id_t → the name the boot announcement uses. */
const CHIPS: Record<number, string> = {
  0x0000: 'ESP32',
  0x0002: 'ESP32-S2',
  0x0005: 'ESP32-C3',
  0x0009: 'ESP32-S3',
  0x000c: 'ESP32-C2',
  0x000d: 'ESP32-C6',
  0x0010: 'ESP32-H2',
};

export interface FirmwareImageInfo {
  version: string;
  project: string;
  /** The chip the image was built for; null for an id this table does not know. */
  chip: string | null;
}

/** The image's own description, or null when it is not an ESP-IDF application image. */
export function readFirmwareImage(image: Uint8Array): FirmwareImageInfo | null {
  if (image.length < PROJECT_OFFSET + TEXT_BYTES || image[0] !== IMAGE_MAGIC) return null;
  const bytes = Buffer.from(image.buffer, image.byteOffset, image.length);
  if (bytes.readUInt32LE(APP_DESC_OFFSET) !== APP_DESC_MAGIC) return null;
  const version = text(bytes, VERSION_OFFSET);
  if (!version) return null;
  return {
    version,
    project: text(bytes, PROJECT_OFFSET),
    chip: CHIPS[bytes.readUInt16LE(CHIP_ID_OFFSET)] ?? null,
  };
}

function text(bytes: Buffer, offset: number): string {
  const field = bytes.subarray(offset, offset + TEXT_BYTES);
  const end = field.indexOf(0);
  // Printable ASCII only: these strings go into MQTT payloads and Home Assistant's UI.
  return field
    .subarray(0, end === -1 ? TEXT_BYTES : end)
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '')
    .trim();
}
