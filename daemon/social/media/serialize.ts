/** MediaAttachment JSON (Mastodon 4.5 REST::MediaAttachmentSerializer). */
import type { MediaRow } from './repo.js';
import type { MediaStorage } from './storage.js';

export interface MediaJson {
  id: string;
  type: string;
  url: string | null;
  preview_url: string | null;
  remote_url: string | null;
  preview_remote_url: null;
  text_url: null;
  meta: Record<string, unknown> | null;
  description: string | null;
  blurhash: string | null;
}

export function serializeMedia(row: MediaRow, storage: MediaStorage): MediaJson {
  const done = row.state === 'done';
  const meta = row.meta ? (JSON.parse(row.meta) as Record<string, unknown>) : {};
  if (row.focus) {
    const [x, y] = row.focus.split(',').map(Number);
    meta.focus = { x, y };
  }
  const local = row.file_name !== null;
  return {
    id: row.id,
    type: row.type,
    url: local ? (done ? storage.url(row.id, row.file_name) : null) : row.remote_url,
    // Remote media is not downloaded: both URLs point at the peer's file, as Mastodon does when uncached.
    preview_url: local ? (done ? storage.url(row.id, row.preview_name) : null) : row.remote_url,
    remote_url: row.remote_url,
    preview_remote_url: null,
    text_url: null,
    meta: Object.keys(meta).length ? meta : null,
    description: row.description,
    blurhash: row.blurhash,
  };
}

/** Media JSON by id, in the order asked; ids no longer there are left out. */
export type MediaById = (ids: readonly string[]) => Promise<MediaJson[]>;
