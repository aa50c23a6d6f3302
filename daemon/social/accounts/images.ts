/**
 * Profile images (avatar, header): the type is read from the bytes, never from the client's
 * word; the static copy of an animated GIF is its first frame (the file cut after the first
 * image), of an animated PNG its default image (animation chunks dropped); a still image is its
 * own static copy.
 */
export type ImageType = 'png' | 'jpeg' | 'gif' | 'webp';

export function detectImage(bytes: Buffer): ImageType | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.subarray(0, 6).toString('latin1'))) return 'gif';
  if (
    bytes.length >= 12 &&
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'webp';
  return null;
}

/** The static copy, or null when the image is not animated (the original serves as its own). */
export function staticCopy(type: ImageType, bytes: Buffer): Buffer | null {
  if (type === 'gif') return gifFirstFrame(bytes);
  if (type === 'png') return pngWithoutAnimation(bytes);
  return null;
}

/** Walks the GIF blocks; with more than one image, returns header + blocks up to the first image + trailer. */
function gifFirstFrame(bytes: Buffer): Buffer | null {
  let offset = 13;
  const flags = bytes[10] ?? 0;
  if (flags & 0x80) offset += 3 * (1 << ((flags & 0x07) + 1));
  let firstImageEnd = -1;
  let images = 0;
  const skipSubBlocks = (at: number) => {
    let p = at;
    while (p < bytes.length && bytes[p] !== 0) p += bytes[p] + 1;
    return p + 1;
  };
  while (offset < bytes.length) {
    const block = bytes[offset];
    if (block === 0x3b) break;
    if (block === 0x21) {
      offset = skipSubBlocks(offset + 2);
    } else if (block === 0x2c) {
      const localFlags = bytes[offset + 9] ?? 0;
      let p = offset + 10;
      if (localFlags & 0x80) p += 3 * (1 << ((localFlags & 0x07) + 1));
      offset = skipSubBlocks(p + 1);
      images += 1;
      if (images === 1) firstImageEnd = offset;
      if (images > 1) break;
    } else {
      return null; // not a GIF we understand: keep the original as its own static copy
    }
  }
  if (images < 2 || firstImageEnd < 0) return null;
  return Buffer.concat([bytes.subarray(0, firstImageEnd), Buffer.from([0x3b])]);
}

/** An APNG carries acTL/fcTL/fdAT chunks beside its default image; dropping them leaves a still PNG. */
function pngWithoutAnimation(bytes: Buffer): Buffer | null {
  const keep: Buffer[] = [bytes.subarray(0, 8)];
  let animated = false;
  let offset = 8;
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.subarray(offset + 4, offset + 8).toString('latin1');
    const end = offset + 12 + length;
    if (end > bytes.length) return null;
    if (type === 'acTL' || type === 'fcTL' || type === 'fdAT') animated = true;
    else keep.push(bytes.subarray(offset, end));
    offset = end;
    if (type === 'IEND') break;
  }
  return animated ? Buffer.concat(keep) : null;
}
