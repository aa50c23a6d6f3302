/**
 * Local copies of peers' images: when a peer's status arrives (or is edited), its image
 * attachments are fetched in the background, one at a time, and kept through the media service,
 * so apps load them from the box instead of telling every peer who reads what. Bounded: at most
 * MAX_PENDING waiting (more stay remote), each at most the image upload limit. What fails stays
 * remote, with a log line.
 */
import type { FederationContext } from '../context.js';
import { IMAGE_LIMIT_BYTES } from '../../media/detect.js';

const MAX_PENDING = 500;

export class RemoteMediaCache {
  private readonly pending: string[] = [];
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly onStatus = ({ statusId }: { statusId: string }) => { void this.enqueueStatus(statusId); };

  constructor(private readonly fed: FederationContext) {}

  start(): void {
    this.stopped = false;
    this.fed.social.events.on('status.created', this.onStatus);
    this.fed.social.events.on('status.updated', this.onStatus);
  }

  /** Stops taking work and waits for the fetch in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.fed.social.events.off('status.created', this.onStatus);
    this.fed.social.events.off('status.updated', this.onStatus);
    this.pending.length = 0;
    await this.running;
  }

  /** Resolves once everything queued so far is fetched (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async enqueueStatus(statusId: string): Promise<void> {
    try {
      const rows = await this.fed.social.reader.all<{ id: string }>(`SELECT CAST(m.id AS TEXT) AS id FROM media_attachments m JOIN statuses s ON s.id = m.status_id
        WHERE m.status_id = ? AND s.local = 0 AND m.remote_url IS NOT NULL AND m.file_name IS NULL AND m.type = 'image' ORDER BY m.id`, [statusId]);
      for (const { id } of rows) if (this.pending.length < MAX_PENDING && !this.pending.includes(id)) this.pending.push(id);
      if (rows.length && !this.running && !this.stopped) this.running = this.drain().finally(() => { this.running = null; });
    } catch (error) {
      this.fed.log.warn('remote media not queued', { status_id: statusId, error: (error as Error).message });
    }
  }

  private async drain(): Promise<void> {
    for (let id = this.pending.shift(); id !== undefined && !this.stopped; id = this.pending.shift()) await this.fetch(id);
  }

  private async fetch(id: string): Promise<void> {
    const row = await this.fed.services.breadth.media.repo.byId(id);
    if (!row?.remote_url || row.file_name !== null) return;
    try {
      const { bytes } = await this.fed.client.getBytes(row.remote_url, IMAGE_LIMIT_BYTES);
      await this.fed.services.breadth.media.cacheRemote(id, bytes);
    } catch (error) {
      this.fed.log.info('remote media not fetched', { media_id: id, error: (error as Error).message });
    }
  }
}
