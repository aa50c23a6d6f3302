/**
 * ESP-Hosted-FG releases as Espressif's Linux driver checks them. The driver is built from one
 * release (RELEASE_VERSION in esp_fw_verify.h: PROJECT_NAME "-" the five numbers of
 * common/include/esp_fw_version.h, e.g. `FG-1.0.0.0.0`) and, with its default FW_CHECK_STRICT,
 * refuses a firmware whose boot announcement names another (esp_fw_verify.c, check_esp_version:
 * no interfaces, "Incompatible ESP firmware release" in the kernel log). The firmware names its
 * release in three places, all written the same way: the boot announcement (FW_DATA), GetFwVersion
 * (slave_control.c, req_get_fw_version_handler: name "FG" and the five numbers) and the image's
 * esp_app_desc_t.version (the firmware's CMakeLists.txt sets PROJECT_VER to that text).
 */
import { readFirmwareImage } from './firmware-image.js';

/** `FG-1.0.0.0.0`: a project name in capitals (the firmware's CMake accepts [A-Z]+) and five numbers. */
const RELEASE = /^([A-Z]+)-(\d{1,10})\.(\d{1,10})\.(\d{1,10})\.(\d{1,10})\.(\d{1,10})$/;

/** The release as the driver formats it ("%s-%u.%u.%u.%u.%u"), or null when `text` is not one. */
export function parseRelease(text: string): string | null {
  const match = RELEASE.exec(text.trim());
  if (!match) return null;
  const numbers = match.slice(2).map(Number);
  if (numbers.some((n) => n > 0xffffffff)) return null;
  return `${match[1]}-${numbers.join('.')}`;
}

/**
 * The driver's own test: strncmp(RELEASE_VERSION, firmware, strlen(firmware)) == 0. Both sides are
 * whole releases here, so that is equality of the two texts.
 */
export function sameRelease(driver: string, firmware: string): boolean {
  return firmware.length > 0 && driver.startsWith(firmware) && parseRelease(firmware) === firmware;
}

export type ImageRelease =
  | { verdict: 'same'; release: string }
  | { verdict: 'other'; release: string }
  /** The image names no FG release (older firmware, or a build whose version was changed). */
  | { verdict: 'unknown'; version: string | null };

/** What an OTA image's app description says of its release, measured against the driver's. */
export function imageRelease(image: Uint8Array, driver: string): ImageRelease {
  const version = readFirmwareImage(image)?.version ?? null;
  const release = version === null ? null : parseRelease(version);
  if (release === null) return { verdict: 'unknown', version };
  return sameRelease(driver, release) ? { verdict: 'same', release } : { verdict: 'other', release };
}

/**
 * Why an image may not be written while the driver is of `driver`'s release, in words for the
 * owner; null when it may. Nothing is written before this is asked.
 */
export function imageReleaseRefusal(image: Uint8Array, driver: string): string | null {
  const found = imageRelease(image, driver);
  if (found.verdict === 'same') return null;
  const what =
    found.verdict === 'other'
      ? `This firmware is ESP-Hosted release ${found.release}`
      : `This firmware names no ESP-Hosted release${found.version ? ` (its version is "${found.version}")` : ''}`;
  return (
    `${what}, but the box's driver is ${driver}: the driver refuses a firmware of another release as ` +
    'soon as the chip restarts, and the box is left without Wi-Fi. Use a firmware of release ' +
    `${driver}, or force the update and rebuild the driver for the firmware's release (scripts/install.sh).`
  );
}
