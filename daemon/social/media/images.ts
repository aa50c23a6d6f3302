/**
 * Image work with sharp, loaded on first use so the daemon's start-up memory does not carry it:
 * auto-orientation, re-encoding without metadata (EXIF with GPS position is dropped), a preview,
 * and a blurhash of the preview. One image at a time, no pixel cache: the box has little memory.
 */
import type { Sharp, SharpOptions } from 'sharp';
import type * as Blurhash from 'blurhash';
import { lazy, onFirstUse } from '../../lib/on-first-use.js';

const blurhash = onFirstUse<typeof Blurhash>('blurhash');

type SharpFactory = (input?: string | Buffer, options?: SharpOptions) => Sharp;

const sharpModule = lazy('image processing (sharp)', async (): Promise<SharpFactory> => {
  const sharp = (await import('sharp')).default;
  sharp.cache(false);
  // Two worker threads at most: the box has two to four cores and other work to do.
  sharp.concurrency(2);
  return sharp;
});

export interface Dimensions {
  width: number;
  height: number;
  size: string;
  aspect: number;
}
export interface ImageResult {
  original: Dimensions;
  small: Dimensions;
  blurhash: string;
}

const MAX_SIDE = 3840;
const PREVIEW_SIDE = 640;

function dims(width: number, height: number): Dimensions {
  return { width, height, size: `${width}x${height}`, aspect: height ? width / height : 1 };
}

/**
 * Writes `original` (re-encoded, oriented, without metadata) and `preview` from `input`.
 * Animated GIFs keep their frames. Throws when the bytes are not a readable image.
 */
export async function processImage(
  input: string,
  original: string,
  preview: string,
  format: string,
): Promise<ImageResult> {
  const sharp = await sharpModule();
  const animated = format === 'gif';
  // Decoded once; the original and the preview are two branches of the same pipeline.
  const base = sharp(input, { animated, failOn: 'error' }).rotate();
  const full = base.clone().resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true });
  const encoded =
    format === 'png'
      ? full.png()
      : format === 'webp'
        ? full.webp({ quality: 90 })
        : format === 'gif'
          ? full.gif()
          : full.jpeg({ quality: 90 });
  const small = base
    .clone()
    .resize({ width: PREVIEW_SIDE, height: PREVIEW_SIDE, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 80 });
  const [info, smallInfo] = await Promise.all([encoded.toFile(original), small.toFile(preview)]);
  const blurhash = await blurhashOf(sharp, preview);
  const height = animated ? info.height / Math.max(1, pagesOf(info)) : info.height;
  return { original: dims(info.width, height), small: dims(smallInfo.width, smallInfo.height), blurhash };
}

function pagesOf(info: { height: number; pageHeight?: number }): number {
  return info.pageHeight ? Math.round(info.height / info.pageHeight) : 1;
}

/** A thumbnail given for audio or video becomes the preview. */
export async function processThumbnail(
  input: string,
  preview: string,
): Promise<{ dims: Dimensions; blurhash: string }> {
  const sharp = await sharpModule();
  return makePreview(sharp, input, preview);
}

async function makePreview(
  sharp: SharpFactory,
  input: string,
  preview: string,
): Promise<{ dims: Dimensions; blurhash: string }> {
  const info = await sharp(input, { failOn: 'error' })
    .rotate()
    .resize({ width: PREVIEW_SIDE, height: PREVIEW_SIDE, fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 80 })
    .toFile(preview);
  return { dims: dims(info.width, info.height), blurhash: await blurhashOf(sharp, preview) };
}

async function blurhashOf(sharp: SharpFactory, image: string): Promise<string> {
  const { data, info } = await sharp(image)
    .resize({ width: 32, height: 32, fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return blurhash().encode(new Uint8ClampedArray(data), info.width, info.height, 4, 4);
}

/** True when sharp can read the image header (a file that only starts like an image is not). */
export async function probe(input: string): Promise<boolean> {
  const sharp = await sharpModule();
  try {
    const meta = await sharp(input).metadata();
    return Boolean(meta.width && meta.height);
  } catch {
    return false;
  }
}
