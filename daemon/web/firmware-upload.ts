/**
 * A coprocessor firmware image uploaded as the raw request body (application/octet-stream; the
 * dashboard sends the file as is, so no multipart is involved). Bounded in size and checked for
 * the ESP32 application image magic byte before anything reaches the device.
 */
import type { Context } from 'koa';
import { HttpError } from '../http/errors.js';
import { unprocessable } from '../lib/errors.js';
import { requireIdentityEncoding } from '../http/body.js';

/** The largest OTA partition of the 4 MB ESP32 layouts is under 2 MB; 4 MiB leaves room. */
export const FIRMWARE_MAX_BYTES = 4 * 1024 * 1024;
const ESP_IMAGE_MAGIC = 0xe9;

export async function readFirmwareUpload(ctx: Context): Promise<Uint8Array> {
  if (!ctx.is('application/octet-stream'))
    throw new HttpError(415, 'Send the firmware file as application/octet-stream');
  requireIdentityEncoding(ctx);
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > FIRMWARE_MAX_BYTES) throw new HttpError(413, 'Payload too large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > FIRMWARE_MAX_BYTES) {
      ctx.req.destroy();
      throw new HttpError(413, 'Payload too large');
    }
    chunks.push(chunk as Buffer);
  }
  const image = Buffer.concat(chunks);
  if (image.length === 0) throw unprocessable('The firmware file is empty');
  if (image[0] !== ESP_IMAGE_MAGIC)
    throw unprocessable('This is not an ESP32 firmware image (it does not start with 0xE9)');
  return new Uint8Array(image.buffer, image.byteOffset, image.length);
}
