/**
 * Local copies of peers' pictures: the image attachments of their statuses (when one arrives or
 * is edited) and their accounts' avatars and headers (when an account is stored or updated) are
 * fetched in the background, one at a time, and kept here, so apps load them from the box instead
 * of telling every peer who reads what. Bounded: at most MAX_PENDING waiting (more stay remote),
 * each at most the image upload limit (profile pictures: 2 MB, as Mastodon). What fails stays
 * remote, with a log line.
 */
import { writeFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { FederationContext } from '../context.js';
import { IMAGE_LIMIT_BYTES } from '../../media/detect.js';
import { ActorsRepo } from '../actors/repo.js';

const MAX_PENDING = 500;
const PICTURE_LIMIT_BYTES = 2 * 1024 * 1024;

type Job = { kind: 'attachment'; id: string } | { kind: 'avatar' | 'header'; accountId: string; source: string };

const keyOf = (job: Job) => (job.kind === 'attachment' ? `m${job.id}` : `${job.kind}${job.accountId}`);

export class RemoteMediaCache {
  private readonly pending = new Map<string, Job>();
  private readonly actors: ActorsRepo;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly onStatus = ({ statusId }: { statusId: string }) => {
    void this.queue(() => this.attachmentsOf(statusId));
  };
  /** A status written here has no peer's media to copy: not even looked up. */
  private readonly onCreated = ({ statusId, local }: { statusId: string; local: boolean }) => {
    if (!local) this.onStatus({ statusId });
  };
  private readonly onAccount = ({ accountId }: { accountId: string }) => {
    void this.queue(() => this.picturesOf(accountId));
  };

  constructor(private readonly fed: FederationContext) {
    this.actors = new ActorsRepo(fed.social);
  }

  start(): void {
    this.stopped = false;
    this.fed.social.events.on(this, 'status.created', this.onCreated);
    this.fed.social.events.on(this, 'status.updated', this.onStatus);
    for (const name of ['account.created', 'account.updated'] as const)
      this.fed.social.events.on(this, name, this.onAccount);
  }

  /** Stops taking work and waits for the fetch in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.fed.social.events.removeListeners(this);
    this.pending.clear();
    await this.running;
  }

  private async queue(find: () => Promise<Job[]>): Promise<void> {
    try {
      for (const job of await find()) if (this.pending.size < MAX_PENDING) this.pending.set(keyOf(job), job);
      if (this.pending.size && !this.running && !this.stopped)
        this.running = this.drain().finally(() => {
          this.running = null;
        });
    } catch (error) {
      this.fed.log.warn('remote media not queued', { error: (error as Error).message });
    }
  }

  /** A peer's status's image attachments not copied yet. */
  private async attachmentsOf(statusId: string): Promise<Job[]> {
    const rows = await this.fed.services.media.repo.uncachedRemoteImages(statusId);
    return rows.map(({ id }) => ({ kind: 'attachment', id }));
  }

  /** A peer's account's pictures that still point at the peer. */
  private async picturesOf(accountId: string): Promise<Job[]> {
    const images = await this.actors.images(accountId);
    if (!images) return [];
    return (['avatar', 'header'] as const).flatMap((kind) => {
      const source = images[`${kind}_source`];
      return source && images[kind] === source ? [{ kind, accountId, source }] : [];
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.size && !this.stopped) {
      const [key, job] = this.pending.entries().next().value as [string, Job];
      this.pending.delete(key);
      try {
        await (job.kind === 'attachment'
          ? this.copyAttachment(job.id)
          : this.copyPicture(job.kind, job.accountId, job.source));
      } catch (error) {
        this.fed.log.info('remote media not copied', { job: key, error: (error as Error).message });
      }
    }
  }

  private async copyAttachment(id: string): Promise<void> {
    const row = await this.fed.services.media.byId(id);
    if (!row?.remote_url || row.file_name !== null) return;
    const { bytes } = await this.fed.client.getBytes(row.remote_url, IMAGE_LIMIT_BYTES);
    await this.fed.services.media.cacheRemote(id, bytes);
  }

  /** An avatar or header, stored as a local one is (with a still copy of an animation). */
  private async copyPicture(kind: 'avatar' | 'header', accountId: string, source: string): Promise<void> {
    const { bytes } = await this.fed.client.getBytes(source, PICTURE_LIMIT_BYTES);
    const incoming = join(this.fed.services.media.storage.incoming, `${kind}-${accountId}`);
    await writeFile(incoming, bytes);
    try {
      const accounts = this.fed.services.accounts;
      const copy = await accounts.storeImage(accountId, kind, incoming);
      // The peer may have changed the picture meanwhile: then this copy is of no use.
      if (!(await this.actors.useCopy(accountId, kind, source, copy))) await accounts.removeImage(copy.original);
    } finally {
      await unlink(incoming).catch(() => undefined);
    }
  }
}
