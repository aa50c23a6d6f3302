/**
 * Where media files live: <data dir>/media/<attachment id>/<name>, and the public URL that serves
 * them. Names are chosen by us (original.<ext>, small.jpg, thumbnail.jpg), never by the uploader.
 * The URL carries a tag only the server can make from the id: files are served without a token
 * (clients and peers load them as plain URLs), so the URL itself must not be guessable, or the
 * media of a private status would be found by counting ids, which are mostly time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Db } from '../../store/db.js';
import { getOrCreateSetting } from '../../store/settings.js';

export const MEDIA_URL_PREFIX = '/system/media_attachments/files';
export const FILE_NAME = /^(original|small|thumbnail|upload)\.[a-z0-9]{1,5}$/;

/** The key of the URL tags (made at first start, kept in the settings). */
export async function loadMediaUrlKey(db: Db): Promise<Buffer> {
  return Buffer.from(
    await getOrCreateSetting(db, 'social.media_url_key', () => randomBytes(32).toString('hex')),
    'hex',
  );
}

export class MediaStorage {
  readonly root: string;
  readonly incoming: string;
  /** `urlKey`: the key of the URL tags (loadMediaUrlKey). */
  constructor(
    dataDir: string,
    private readonly baseUrl: string,
    private readonly urlKey: Buffer,
  ) {
    this.root = join(dataDir, 'media');
    this.incoming = join(this.root, 'incoming');
  }

  async prepare(): Promise<void> {
    await mkdir(this.incoming, { recursive: true });
  }

  dir(id: string): string {
    return join(this.root, id);
  }

  path(id: string, name: string): string {
    return join(this.root, id, name);
  }

  url(id: string, name: string | null): string | null {
    return name ? `${this.baseUrl}${MEDIA_URL_PREFIX}/${id}/${this.tag(id)}/${name}` : null;
  }

  /** Whether `tag` is the one an attachment's URLs carry (compared in constant time). */
  tagged(id: string, tag: string): boolean {
    const expected = Buffer.from(this.tag(id));
    const given = Buffer.from(tag);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private tag(id: string): string {
    return createHmac('sha256', this.urlKey).update(id).digest('base64url').slice(0, 22);
  }

  /** Upload leftovers (a request cut off or refused mid-way) older than `maxAgeMs`. */
  async sweepIncoming(maxAgeMs: number, nowMs: number): Promise<number> {
    let removed = 0;
    for (const name of await readdir(this.incoming).catch(() => [] as string[])) {
      const path = join(this.incoming, name);
      const info = await stat(path).catch(() => null);
      if (info && nowMs - info.mtimeMs > maxAgeMs) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async remove(id: string): Promise<void> {
    await rm(this.dir(id), { recursive: true, force: true });
  }
}
