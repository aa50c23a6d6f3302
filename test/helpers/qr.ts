/** Reads the QR code in a PNG the way a phone camera would: from its pixels. */
// jsqr is CommonJS with its function on `exports.default`.
import jsqr from 'jsqr';
import { PNG } from 'pngjs';

export function decodeQrPng(png: Buffer): string {
  const image = PNG.sync.read(png);
  const code = jsqr.default(
    new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length),
    image.width,
    image.height,
    // A printed label is dark on light: the second, inverted pass would only double the work.
    { inversionAttempts: 'dontInvert' },
  );
  if (!code) throw new Error('no QR code found in the image');
  return code.data;
}
