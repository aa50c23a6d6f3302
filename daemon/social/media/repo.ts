/** SQL for media attachments. Ids are snowflakes, read as text. */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectOf, rawRows } from '../../store/dialect.js';

export interface MediaRow {
  id: string;
  account_id: string;
  status_id: string | null;
  /** Held for a scheduled status until it is posted. */
  scheduled_status_id: string | null;
  type: string;
  content_type: string | null;
  file_name: string | null;
  file_size: number | null;
  preview_name: string | null;
  thumbnail_name: string | null;
  remote_url: string | null;
  description: string | null;
  focus: string | null;
  meta: string | null;
  blurhash: string | null;
  state: 'processing' | 'done' | 'failed';
  error: string | null;
  created_at: string;
}

const COLUMNS = `CAST(id AS TEXT) AS id, CAST(account_id AS TEXT) AS account_id, CAST(status_id AS TEXT) AS status_id,
  CAST(scheduled_status_id AS TEXT) AS scheduled_status_id, type, content_type,
  file_name, file_size, preview_name, thumbnail_name, remote_url, description, focus, meta, blurhash, state, error, created_at`;

export class MediaRepo {
  constructor(private readonly ctx: SocialContext) {}

  byId(id: string): Promise<MediaRow | undefined> {
    return this.ctx.reader.get<MediaRow>(`SELECT ${COLUMNS} FROM media_attachments WHERE id = ?`, [id]);
  }

  byIds(ids: readonly string[]): Promise<MediaRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.ctx.reader.all<MediaRow>(
      `SELECT ${COLUMNS} FROM media_attachments WHERE id IN ${dialectOf(this.ctx.db).idSet()}`,
      [JSON.stringify(ids)],
    );
  }

  ofStatuses(statusIds: readonly string[]): Promise<MediaRow[]> {
    if (statusIds.length === 0) return Promise.resolve([]);
    return this.ctx.reader.all<MediaRow>(
      `SELECT ${COLUMNS} FROM media_attachments
      WHERE status_id IN ${dialectOf(this.ctx.db).idSet()} ORDER BY id`,
      [JSON.stringify(statusIds)],
    );
  }

  pending(): Promise<Array<{ id: string }>> {
    return this.ctx.reader.all(
      `SELECT CAST(id AS TEXT) AS id FROM media_attachments WHERE state = 'processing' ORDER BY id`,
    );
  }

  async insert(row: Record<string, unknown>, trx: Knex = this.ctx.db): Promise<void> {
    await trx('media_attachments').insert(row);
  }

  /** Removes a peer's status's media rows (an edit replaces them); returns their ids. */
  async removeRemoteOf(trx: Knex, statusId: string): Promise<string[]> {
    const rows = await rawRows<{ id: string }>(
      trx,
      `DELETE FROM media_attachments WHERE status_id = ? AND remote_url IS NOT NULL RETURNING CAST(id AS TEXT) AS id`,
      [statusId],
    );
    return rows.map((row) => row.id);
  }

  /** Rows still "processing" since before `beforeIso`. */
  stuckProcessing(beforeIso: string): Promise<Array<{ id: string }>> {
    return this.ctx.reader.all(
      `SELECT CAST(id AS TEXT) AS id FROM media_attachments WHERE state = 'processing' AND updated_at < ?`,
      [beforeIso],
    );
  }

  /** Which of `ids` have a row. */
  async existing(ids: readonly string[]): Promise<Set<string>> {
    const rows = await this.ctx.reader.all<{ id: string }>(
      `SELECT CAST(id AS TEXT) AS id FROM media_attachments
      WHERE id IN ${dialectOf(this.ctx.db).idSet()}`,
      [JSON.stringify(ids)],
    );
    return new Set(rows.map(({ id }) => id));
  }

  staleUnattached(beforeIso: string): Promise<Array<{ id: string }>> {
    return this.ctx.reader.all(
      `SELECT CAST(id AS TEXT) AS id FROM media_attachments WHERE status_id IS NULL AND scheduled_status_id IS NULL AND created_at < ? AND state != 'processing'`,
      [beforeIso],
    );
  }

  /** Peers' media with a local copy made before `beforeIso` (a copy is the row's last change). */
  /** A peer's status's image attachments not copied here yet. */
  uncachedRemoteImages(statusId: string): Promise<Array<{ id: string }>> {
    return this.ctx.reader.all(
      `SELECT CAST(m.id AS TEXT) AS id FROM media_attachments m JOIN statuses s ON s.id = m.status_id
      WHERE m.status_id = ? AND NOT s.local AND m.remote_url IS NOT NULL AND m.file_name IS NULL AND m.type = 'image' ORDER BY m.id`,
      [statusId],
    );
  }

  cachedRemote(beforeIso: string): Promise<Array<{ id: string }>> {
    return this.ctx.reader.all(
      `SELECT CAST(id AS TEXT) AS id FROM media_attachments WHERE remote_url IS NOT NULL AND file_name IS NOT NULL AND updated_at < ? LIMIT 1000`,
      [beforeIso],
    );
  }

  async remove(id: string): Promise<void> {
    await this.ctx.db('media_attachments').where({ id }).whereNull('status_id').delete();
  }

  async update(id: string, patch: Record<string, unknown>): Promise<void> {
    await this.ctx
      .db('media_attachments')
      .where({ id })
      .update({ ...patch, updated_at: new Date(this.ctx.now()).toISOString() });
  }

  /** Holds unattached media of `accountId` for a scheduled status. */
  async reserve(trx: Knex, scheduledId: string, accountId: string, ids: readonly string[]): Promise<void> {
    await trx.raw(
      `UPDATE media_attachments SET scheduled_status_id = ? WHERE account_id = ? AND status_id IS NULL AND scheduled_status_id IS NULL
      AND id IN ${dialectOf(this.ctx.db).idSet()}`,
      [scheduledId, accountId, JSON.stringify(ids)],
    );
  }

  /** Attaches unattached media of `accountId` to a status; returns how many were attached. */
  async attach(trx: Knex, statusId: string, accountId: string, ids: readonly string[]): Promise<number> {
    const rows = await rawRows(
      trx,
      `UPDATE media_attachments SET status_id = ? WHERE account_id = ? AND status_id IS NULL
      AND id IN ${dialectOf(this.ctx.db).idSet()} RETURNING id`,
      [statusId, accountId, JSON.stringify(ids)],
    );
    return rows.length;
  }
}
