/**
 * What an uploaded file really is, from its bytes (never its name): the Mastodon attachment type,
 * the MIME type and the extension the stored file gets. Unknown contents are refused by the caller.
 */
import { lazy } from '../../lib/on-first-use.js';

// Loaded on the first upload, like sharp: start-up (daemon and admin tool) does not pay for it.
const fileType = lazy('file type detection (file-type)', () => import('file-type'));

export type MediaKind = 'image' | 'video' | 'audio';

export interface Detected {
  kind: MediaKind;
  mime: string;
  ext: string;
}

const IMAGE = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/heic', 'image/heif']);
const VIDEO = new Set(['video/mp4', 'video/webm', 'video/quicktime', 'video/x-m4v']);
const AUDIO = new Set([
  'audio/mpeg',
  'audio/ogg',
  'audio/opus',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/flac',
  'audio/x-flac',
  'audio/aac',
  'audio/x-m4a',
  'audio/mp4',
  'audio/webm',
  'audio/3gpp',
]);

export async function detectMedia(path: string): Promise<Detected | null> {
  const { fileTypeFromFile } = await fileType();
  const found = await fileTypeFromFile(path);
  if (!found) return null;
  const kind: MediaKind | null = IMAGE.has(found.mime)
    ? 'image'
    : VIDEO.has(found.mime)
      ? 'video'
      : AUDIO.has(found.mime)
        ? 'audio'
        : null;
  return kind ? { kind, mime: found.mime, ext: found.ext } : null;
}

/** A declared type (the part's Content-Type) lies when it names another family than the bytes. */
export function contradicts(declared: string | null | undefined, detected: Detected): boolean {
  if (!declared) return false;
  const family = declared.split('/')[0].toLowerCase();
  if (declared === 'application/octet-stream' || !['image', 'video', 'audio'].includes(family)) return false;
  return family !== detected.kind;
}

/** Design limits: 16 MB for images, 99 MB for video and audio. */
export const IMAGE_LIMIT_BYTES = 16 * 1024 * 1024;
export const AV_LIMIT_BYTES = 99 * 1024 * 1024;

export function limitFor(kind: MediaKind): number {
  return kind === 'image' ? IMAGE_LIMIT_BYTES : AV_LIMIT_BYTES;
}
