/**
 * Media on Notes, both ways. Inbound: a Note's `attachment` (Document, Image, Video, Audio) becomes
 * media rows that only reference the peer's file by `remote_url` (nothing is downloaded: the box
 * has little disk). Outbound: a local status's processed media become Documents as Mastodon writes
 * them (url, mediaType, name, blurhash, focalPoint, width, height).
 */
import type { MediaRow } from '../../media/repo.js';
import type { MediaStorage } from '../../media/storage.js';
import { MAX_ATTACHMENTS, MAX_DESCRIPTION } from '../../media/service.js';
import { checkUrl, type AddressPolicy } from '../net/address-policy.js';
import { asArray, hasType, isObject, str, type Json } from './ld.js';
import { imageTypeOf } from './media-types.js';

const ATTACHMENT_TYPES = ['Document', 'Image', 'Video', 'Audio'];
const MAX_URL = 2048;
const MAX_SIDE = 100_000;
const BLURHASH = /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,100}$/;
const MEDIA_TYPE = /^[a-z]+\/[a-z0-9.+-]{1,100}$/i;

export interface ParsedAttachment {
  type: 'image' | 'video' | 'audio' | 'unknown';
  remoteUrl: string;
  contentType: string | null;
  description: string | null;
  blurhash: string | null;
  meta: Json | null;
  focus: string | null;
}

/** The usable attachments of a Note, at most four; anything malformed is skipped, never thrown. */
export function parseAttachments(value: unknown, policy: AddressPolicy): ParsedAttachment[] {
  const out: ParsedAttachment[] = [];
  for (const item of asArray(value).slice(0, 20)) {
    const parsed = parseAttachment(item, policy);
    if (parsed) out.push(parsed);
    if (out.length === MAX_ATTACHMENTS) break;
  }
  return out;
}

function parseAttachment(item: unknown, policy: AddressPolicy): ParsedAttachment | null {
  if (!isObject(item) || !hasType(item, ...ATTACHMENT_TYPES)) return null;
  const remoteUrl = urlOf(item.url, policy);
  if (!remoteUrl) return null;
  const mediaType = str(item.mediaType);
  const contentType = mediaType && MEDIA_TYPE.test(mediaType) ? mediaType.toLowerCase() : null;
  const blurhash = str(item.blurhash);
  // As Mastodon: some servers put the alt text in `summary`, most in `name`.
  const name = (str(item.summary)?.trim() || str(item.name)?.trim()) ?? null;
  return {
    type: kindOf(contentType, item),
    remoteUrl,
    contentType,
    description: name ? [...name].slice(0, MAX_DESCRIPTION).join('') : null,
    blurhash: blurhash && BLURHASH.test(blurhash) ? blurhash : null,
    meta: metaOf(item),
    focus: focusOf(item.focalPoint),
  };
}

/** `url` may be a string, a Link object or an array of them; the first acceptable one wins. */
function urlOf(value: unknown, policy: AddressPolicy): string | null {
  for (const candidate of asArray(value).slice(0, 5)) {
    const raw = str(candidate) ?? (isObject(candidate) ? str(candidate.href) : null);
    if (!raw || raw.length > MAX_URL) continue;
    try {
      return checkUrl(policy, raw).toString();
    } catch {
      continue;
    }
  }
  return null;
}

function kindOf(contentType: string | null, item: Json): ParsedAttachment['type'] {
  const family = contentType?.split('/')[0];
  if (family === 'image' || family === 'video' || family === 'audio') return family;
  if (hasType(item, 'Image')) return 'image';
  if (hasType(item, 'Video')) return 'video';
  if (hasType(item, 'Audio')) return 'audio';
  return 'unknown';
}

function metaOf(item: Json): Json | null {
  const { width, height } = item;
  if (!isSide(width) || !isSide(height)) return null;
  return { original: { width, height, size: `${width}x${height}`, aspect: width / height } };
}

function isSide(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_SIDE;
}

function focusOf(value: unknown): string | null {
  if (!Array.isArray(value) || value.length !== 2) return null;
  const [x, y] = value as unknown[];
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= -1 && n <= 1;
  return ok(x) && ok(y) ? `${x},${y}` : null;
}

/** Media rows for a remote status (stored processed: there is nothing to process). */
export function attachmentRows(
  parsed: ParsedAttachment[],
  ids: () => string,
  accountId: string,
  statusId: string,
  now: string,
): Json[] {
  return parsed.map((a) => ({
    id: ids(),
    account_id: accountId,
    status_id: statusId,
    type: a.type,
    content_type: a.contentType,
    remote_url: a.remoteUrl,
    description: a.description,
    blurhash: a.blurhash,
    meta: a.meta ? JSON.stringify(a.meta) : null,
    focus: a.focus,
    state: 'done',
    created_at: now,
    updated_at: now,
  }));
}

/** A local status's media as Documents (processed ones only: the others have no file to point at). */
export function renderAttachments(rows: MediaRow[], storage: MediaStorage): Json[] {
  return rows
    .filter((row) => row.state === 'done')
    .map((row) => {
      const url = row.file_name ? storage.url(row.id, row.file_name) : row.remote_url;
      const meta = row.meta ? (JSON.parse(row.meta) as { original?: { width?: number; height?: number } }) : {};
      const doc: Json = {
        type: 'Document',
        mediaType:
          (row.type === 'image' && row.file_name ? imageTypeOf(row.file_name) : undefined) ??
          row.content_type ??
          'application/octet-stream',
        url,
        name: row.description ?? null,
        blurhash: row.blurhash ?? undefined,
        width: meta.original?.width,
        height: meta.original?.height,
      };
      if (row.focus) doc.focalPoint = row.focus.split(',').map(Number);
      for (const key of Object.keys(doc)) if (doc[key] === undefined) delete doc[key];
      return doc;
    });
}
