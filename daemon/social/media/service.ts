/**
 * The media rules: content-detected type, size limits (413), lying files (422), background
 * processing (one at a time; v2 answers before it ends), description and focus edits only while
 * unattached, and the checks a status makes before taking media (own, unattached, processed,
 * at most four, no mix of images and video).
 */
import { link, rename, rm, stat, unlink, mkdir, writeFile } from 'node:fs/promises';
import type { Knex } from 'knex';
import { join } from 'node:path';
import { notFound, unprocessable, tooLarge } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { nowIso } from '../time.js';
import { contradicts, detectMedia, limitFor, type Detected } from './detect.js';
import { probe, processImage, processThumbnail } from './images.js';
import { MediaRepo, type MediaRow } from './repo.js';
import { serializeMedia, type MediaJson } from './serialize.js';
import type { MediaStorage } from './storage.js';
import { syncFiles, syncPath } from '../../storage/durable-files.js';
import { isOutOfSpace, outOfSpaceError } from '../../storage/out-of-space.js';
import type { Family, RateLimiter, RateLimitHeaders } from '../ratelimit/limiter.js';

/** Mastodon's throttle on uploads: 30 per 30 minutes per account. */
export const MEDIA_UPLOADS: Family = { name: 'media', limit: 30, periodMs: 30 * 60_000 };
/** Unattached media older than this is removed (a client that gave up on a post). */
export const UNATTACHED_MAX_AGE_MS = 24 * 3600_000;

export interface UploadedFile {
  path: string;
  declaredType?: string | null;
  size: number;
}
export interface MediaInput {
  description?: string;
  focus?: string;
  thumbnail?: UploadedFile;
}

export const MAX_DESCRIPTION = 1500;
export const MAX_ATTACHMENTS = 4;

export class MediaService {
  readonly repo: MediaRepo;
  private queue: Promise<void> = Promise.resolve();
  private readonly waiting = new Map<string, Promise<void>>();

  constructor(
    private readonly ctx: SocialContext,
    readonly storage: MediaStorage,
    private readonly limiter: RateLimiter,
  ) {
    this.repo = new MediaRepo(ctx);
  }

  ofStatuses(...args: Parameters<MediaRepo['ofStatuses']>): ReturnType<MediaRepo['ofStatuses']> {
    return this.repo.ofStatuses(...args);
  }
  reserve(...args: Parameters<MediaRepo['reserve']>): ReturnType<MediaRepo['reserve']> {
    return this.repo.reserve(...args);
  }

  // The reads routes answer with, as the repo makes them.
  byId(...args: Parameters<MediaRepo['byId']>): ReturnType<MediaRepo['byId']> {
    return this.repo.byId(...args);
  }

  /** A peer's attachments (rows referencing its files, stored processed), in its status's transaction. */
  async attachFromPeer(trx: Knex, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    for (const row of rows) await this.repo.insert(row, trx);
  }

  /** A peer's edit replaces its attachments: the rows go now; their ids, for `forgetFiles` after the commit. */
  detachFromPeer(trx: Knex, statusId: string): Promise<string[]> {
    return this.repo.removeRemoteOf(trx, statusId);
  }

  /** Removes the local copies (if cached) of media whose rows are gone. */
  async forgetFiles(ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.storage.remove(id);
  }

  /** Re-queues what a stop interrupted. */
  async resume(): Promise<void> {
    await this.storage.prepare();
    for (const { id } of await this.repo.pending()) {
      // Nobody waits for these; a failure past process()'s own handling must not go unhandled.
      this.enqueue(id).catch((error: Error) =>
        this.ctx.log.warn('media processing failed', { media_id: id, error: error.message }),
      );
    }
  }

  /**
   * Counts an upload attempt against the account's limit before its body is read, as Mastodon's
   * throttle counts requests: refused and failed uploads count too, so they cannot fill the disk.
   */
  async countUpload(accountId: string): Promise<RateLimitHeaders> {
    return this.ctx.db.transaction((trx) => this.limiter.record(trx, accountId, MEDIA_UPLOADS));
  }

  /**
   * Checks and stores an upload; processing is queued. `done` settles when it is finished.
   * Everything that can refuse it is checked before anything is written to the media folder.
   */
  async upload(accountId: string, file: UploadedFile, input: MediaInput): Promise<{ id: string; done: Promise<void> }> {
    const detected = await this.check(file);
    validateInput(input);
    const thumbnail = input.thumbnail && detected.kind !== 'image' ? await this.checkThumbnail(input.thumbnail) : null;
    const id = this.ctx.ids.next();
    const uploadName = `upload.${detected.ext}`;
    const now = nowIso(this.ctx.now());
    try {
      await mkdir(this.storage.dir(id), { recursive: true });
      await rename(file.path, this.storage.path(id, uploadName));
      const thumbnailName = thumbnail ? await this.takeThumbnail(id, input.thumbnail!, thumbnail) : null;
      // The files and the new folder are on the card before the row that names them.
      await syncFiles(
        [uploadName, ...(thumbnailName ? [thumbnailName] : [])].map((name) => this.storage.path(id, name)),
        [this.storage.root],
      );
      await this.repo.insert({
        id,
        account_id: accountId,
        type: detected.kind,
        content_type: detected.mime,
        file_name: uploadName,
        file_size: file.size,
        thumbnail_name: thumbnailName,
        description: input.description ?? null,
        focus: input.focus ?? null,
        state: 'processing',
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      await this.storage.remove(id);
      throw error;
    }
    return { id, done: this.enqueue(id) };
  }

  private async check(file: UploadedFile): Promise<Detected> {
    const detected = await detectMedia(file.path);
    const size = (await stat(file.path)).size;
    // formidable drops a write error that arrives after the form has ended (a small file on a
    // full disk): then fewer bytes are on disk than were received.
    if (size < file.size) throw outOfSpaceError(`only ${size} of the upload's ${file.size} bytes reached the disk`);
    if (!detected) throw unprocessable('Validation failed: File content type is invalid');
    if (contradicts(file.declaredType, detected))
      throw unprocessable('Validation failed: File content does not match its declared type');
    if (size > limitFor(detected.kind))
      throw tooLarge(`Validation failed: File size must be less than ${limitFor(detected.kind) / 1024 / 1024} MB`);
    if (detected.kind === 'image' && !(await probe(file.path)))
      throw unprocessable('Validation failed: File could not be read as an image');
    return detected;
  }

  private async checkThumbnail(file: UploadedFile): Promise<Detected> {
    const detected = await detectMedia(file.path);
    if (!detected || detected.kind !== 'image')
      throw unprocessable('Validation failed: Thumbnail content type is invalid');
    if (file.size > limitFor('image')) throw tooLarge('Validation failed: Thumbnail is too large');
    return detected;
  }

  private async takeThumbnail(id: string, file: UploadedFile, detected: Detected): Promise<string> {
    const name = `thumbnail-upload.${detected.ext}`;
    await rename(file.path, this.storage.path(id, name));
    return name;
  }

  private enqueue(id: string): Promise<void> {
    const run = this.queue.then(() => this.process(id));
    this.queue = run.catch(() => undefined);
    const done = run.finally(() => this.waiting.delete(id));
    this.waiting.set(id, done);
    return done;
  }

  private async process(id: string): Promise<void> {
    const row = await this.repo.byId(id);
    if (!row || row.state !== 'processing') return;
    const ext = row.file_name!.slice(row.file_name!.lastIndexOf('.') + 1);
    const upload = this.storage.path(id, row.file_name!);
    try {
      // The row moves to the new files before the upload goes: a crash in between leaves a row
      // naming files that exist (the upload, processed again on resume, or the results).
      if (row.type === 'image') {
        const format = ['png', 'webp', 'gif'].includes(ext) ? ext : 'jpg';
        const original = `original.${format}`;
        const result = await processImage(
          upload,
          this.storage.path(id, original),
          this.storage.path(id, 'small.jpg'),
          format,
        );
        await syncFiles([this.storage.path(id, original), this.storage.path(id, 'small.jpg')]);
        await this.repo.update(id, {
          state: 'done',
          file_name: original,
          preview_name: 'small.jpg',
          blurhash: result.blurhash,
          meta: JSON.stringify({ original: result.original, small: result.small }),
        });
        await unlink(upload).catch(() => undefined);
      } else {
        const original = this.storage.path(id, `original.${ext}`);
        // A second name for the same bytes (no copy); the upload's name goes once the row has moved.
        await rm(original, { force: true });
        await link(upload, original);
        await syncPath(this.storage.dir(id));
        const thumbnail = row.thumbnail_name ? await this.thumbnailPatch(id, row.thumbnail_name) : null;
        await this.repo.update(id, { state: 'done', file_name: `original.${ext}`, ...thumbnail?.patch });
        await unlink(upload).catch(() => undefined);
        await thumbnail?.removeUpload();
      }
    } catch (error) {
      this.ctx.log.warn('media processing failed', { media_id: id, error: (error as Error).message });
      // On a full disk marking it fails too; nobody awaits a v2 upload's processing, so a throw
      // here would be an unhandled rejection that stops the daemon. The sweep finds the row later.
      await this.fail(id).catch((markError: Error) => {
        this.ctx.log.warn('media left processing', { media_id: id, error: markError.message });
      });
    }
  }

  /** A failed attachment keeps its row (apps polling it learn it failed) but none of its files. */
  async fail(id: string): Promise<void> {
    await this.storage.remove(id);
    await this.repo.update(id, {
      state: 'failed',
      error: 'Processing failed',
      file_name: null,
      preview_name: null,
      thumbnail_name: null,
    });
  }

  /** True while `id` waits in this process's queue or is being processed. */
  queued(id: string): boolean {
    return this.waiting.has(id);
  }

  /** Removes an attachment and its files (a v1 upload whose processing failed: its id was never given out). */
  async discard(id: string): Promise<void> {
    await this.repo.remove(id);
    await this.storage.remove(id);
  }

  /**
   * The preview from an uploaded thumbnail, made beside the current one and renamed over it (a
   * failure leaves the old one whole). The upload goes (removeUpload) once the row names the preview.
   */
  private async thumbnailPatch(
    id: string,
    uploaded: string,
  ): Promise<{ patch: Record<string, unknown>; removeUpload: () => Promise<void> }> {
    const next = this.storage.path(id, 'thumbnail-next.jpg');
    const removeUpload = () => unlink(this.storage.path(id, uploaded)).catch(() => undefined);
    try {
      const result = await processThumbnail(this.storage.path(id, uploaded), next);
      await syncPath(next);
      await rename(next, this.storage.path(id, 'thumbnail.jpg'));
      await syncPath(this.storage.dir(id));
      return {
        patch: {
          thumbnail_name: 'thumbnail.jpg',
          preview_name: 'thumbnail.jpg',
          blurhash: result.blurhash,
          meta: JSON.stringify({ small: result.dims }),
        },
        removeUpload,
      };
    } catch (error) {
      await unlink(next).catch(() => undefined);
      await removeUpload();
      throw error;
    }
  }

  /** Media JSON by id, in the order asked (edit history, scheduled statuses). */
  async jsonByIds(ids: readonly string[]): Promise<MediaJson[]> {
    const rows = new Map((await this.repo.byIds(ids)).map((row) => [row.id, row]));
    return ids.flatMap((id) => (rows.has(id) ? [serializeMedia(rows.get(id)!, this.storage)] : []));
  }

  /**
   * Keeps a local copy of a peer's image (processed as an upload is: original and preview, with
   * their sizes), so apps load it from the box and not from the peer. Anything that is not an
   * image this box can read is left remote. True when the copy was made.
   */
  async cacheRemote(id: string, bytes: Buffer): Promise<boolean> {
    const row = await this.repo.byId(id);
    if (!row || row.remote_url === null || row.file_name !== null || row.type !== 'image') return false;
    const incoming = join(this.storage.incoming, `remote-${id}`);
    await writeFile(incoming, bytes);
    try {
      const detected = await detectMedia(incoming);
      if (!detected || detected.kind !== 'image' || bytes.length > limitFor('image') || !(await probe(incoming)))
        return false;
      await mkdir(this.storage.dir(id), { recursive: true });
      const format = ['png', 'webp', 'gif'].includes(detected.ext) ? detected.ext : 'jpg';
      const original = `original.${format}`;
      const result = await processImage(
        incoming,
        this.storage.path(id, original),
        this.storage.path(id, 'small.jpg'),
        format,
      );
      await syncFiles([this.storage.path(id, original), this.storage.path(id, 'small.jpg')], [this.storage.root]);
      await this.repo.update(id, {
        file_name: original,
        preview_name: 'small.jpg',
        file_size: bytes.length,
        blurhash: row.blurhash ?? result.blurhash,
        meta: JSON.stringify({ original: result.original, small: result.small }),
      });
      return true;
    } catch (error) {
      this.ctx.log.info('remote media not cached', { media_id: id, error: (error as Error).message });
      await this.storage.remove(id);
      return false;
    } finally {
      await unlink(incoming).catch(() => undefined);
    }
  }

  /**
   * Drops the local copies of peers' media cached before `beforeIso` (the rows point at the
   * peer's files again): an SD card does not keep the fediverse. Returns how many.
   */
  async uncacheRemote(beforeIso: string): Promise<number> {
    const rows = await this.repo.cachedRemote(beforeIso);
    for (const { id } of rows) {
      await this.repo.update(id, { file_name: null, preview_name: null, file_size: null });
      await this.storage.remove(id);
    }
    return rows.length;
  }

  /** Removes unattached media older than a day, files included; returns how many. */
  async removeStale(): Promise<number> {
    const before = nowIso(this.ctx.now() - UNATTACHED_MAX_AGE_MS);
    const stale = await this.repo.staleUnattached(before);
    for (const { id } of stale) {
      await this.repo.remove(id);
      await this.storage.remove(id);
    }
    return stale.length;
  }

  /** Waits for processing of `id` if it is queued. */
  async settled(id: string): Promise<void> {
    await this.waiting.get(id);
  }

  /**
   * Deletes the caller's attachment that no status carries (Mastodon 4.4); one that a status or a
   * scheduled status holds is 422; another account's is 404. Waits for processing to end first.
   */
  async delete(accountId: string, id: string): Promise<void> {
    const row = await this.repo.byId(id);
    if (!row || row.account_id !== accountId) throw notFound();
    if (row.status_id !== null || row.scheduled_status_id !== null)
      throw unprocessable('Media attachment is currently used by a status');
    await this.settled(id);
    await this.repo.remove(id);
    await this.storage.remove(id);
  }

  /** The caller's unattached attachment (GET and PUT): anything else is 404, as in Mastodon. */
  async ownUnattached(accountId: string, id: string): Promise<MediaRow> {
    const row = await this.repo.byId(id);
    if (!row || row.account_id !== accountId || row.status_id !== null) throw notFound();
    return row;
  }

  async update(accountId: string, id: string, input: MediaInput): Promise<MediaRow> {
    const row = await this.ownUnattached(accountId, id);
    validateInput(input);
    const patch: Record<string, unknown> = {};
    let thumbnail: Awaited<ReturnType<MediaService['thumbnailPatch']>> | null = null;
    if (input.description !== undefined) patch.description = input.description;
    if (input.focus !== undefined) patch.focus = input.focus;
    if (input.thumbnail) {
      if (row.type === 'image') throw unprocessable('Validation failed: Thumbnail can only be set for audio and video');
      const name = await this.takeThumbnail(id, input.thumbnail, await this.checkThumbnail(input.thumbnail));
      thumbnail = await this.thumbnailPatch(id, name).catch((error: unknown) => {
        if (isOutOfSpace(error)) throw error;
        throw unprocessable('Validation failed: Thumbnail could not be processed');
      });
      Object.assign(patch, thumbnail.patch);
    }
    if (Object.keys(patch).length) await this.repo.update(id, patch);
    await thumbnail?.removeUpload();
    return (await this.repo.byId(id))!;
  }

  /** Checks media ids for a new status; returns them deduplicated in order. */
  async checkForStatus(accountId: string, ids: readonly string[]): Promise<string[]> {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_ATTACHMENTS)
      throw unprocessable(`Validation failed: You can attach at most ${MAX_ATTACHMENTS} files`);
    const rows = await this.repo.byIds(unique);
    const usable = rows.filter(
      (row) => row.account_id === accountId && row.status_id === null && row.scheduled_status_id === null,
    );
    if (usable.length !== unique.length)
      throw unprocessable('Validation failed: Media attachments are not yours or are already attached');
    if (usable.some((row) => row.state !== 'done'))
      throw unprocessable('Validation failed: Media attachments are still being processed');
    const kinds = new Set(usable.map((row) => row.type));
    if (kinds.size > 1 && (kinds.has('video') || kinds.has('audio')))
      throw unprocessable('Validation failed: Cannot attach a video or audio file to a status with other files');
    return unique;
  }
}

function validateInput(input: MediaInput): void {
  if (input.description !== undefined && [...input.description].length > MAX_DESCRIPTION) {
    throw unprocessable(`Validation failed: Description is too long (maximum is ${MAX_DESCRIPTION} characters)`);
  }
  if (input.focus !== undefined) {
    const parts = input.focus.split(',').map((part) => Number(part.trim()));
    if (parts.length !== 2 || parts.some((n) => !Number.isFinite(n) || n < -1 || n > 1))
      throw unprocessable('Validation failed: Focus must be "x,y" with values from -1 to 1');
    input.focus = parts.join(',');
  }
}
