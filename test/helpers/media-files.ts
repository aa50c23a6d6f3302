/** Real image files for the media tests, made with sharp: a JPEG carrying EXIF GPS, a PNG, and a big noisy JPEG. */
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';

export async function jpegWithGps(width = 800, height = 600): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })
    .jpeg()
    .withExif({ IFD0: { Make: 'NestboxTestCam', Copyright: 'test' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 600/100' } })
    .toBuffer();
}

export async function png(width = 300, height = 200): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 10, g: 120, b: 240, alpha: 0.5 } } }).png().toBuffer();
}

/** A real JPEG padded past `bytes` (decoders ignore what follows the end-of-image marker). */
export async function paddedJpeg(bytes: number): Promise<Buffer> {
  const jpeg = await sharp(randomBytes(64 * 64 * 3), { raw: { width: 64, height: 64, channels: 3 } }).jpeg().toBuffer();
  return Buffer.concat([jpeg, Buffer.alloc(bytes - jpeg.length + 1)]);
}

export function form(fields: Record<string, string | { data: Buffer; type: string; name: string }>): FormData {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') body.append(key, value);
    else body.append(key, new Blob([value.data], { type: value.type }), value.name);
  }
  return body;
}
