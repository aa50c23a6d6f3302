/**
 * Where media files live: <data dir>/media/<attachment id>/<name>, and the public URL that serves
 * them. Names are chosen by us (original.<ext>, small.jpg, thumbnail.jpg), never by the uploader.
 */
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const MEDIA_URL_PREFIX = '/system/media_attachments/files';
export const FILE_NAME = /^(original|small|thumbnail|upload)\.[a-z0-9]{1,5}$/;

export class MediaStorage {
  readonly root: string;
  readonly incoming: string;

  constructor(dataDir: string, private readonly baseUrl: string) {
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
    return name ? `${this.baseUrl}${MEDIA_URL_PREFIX}/${id}/${name}` : null;
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
