/**
 * SQL for status edit history. Whoever edits a status (the API, federation) calls beforeEdit and
 * afterEdit inside the edit's transaction: the original is kept once, then each new version.
 */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectOf } from '../../store/dialect.js';
import { numberedRows } from '../../store/numbered.js';

export interface StatusEditRow {
  account_id: string;
  content: string;
  spoiler_text: string;
  sensitive: number;
  media_ids: string[];
  /** The poll's option titles at that version, or null without a poll. */
  poll_options: string[] | null;
  created_at: string;
}

/** A snapshot of status ?1 as it is now, dated by `at` (an SQL expression over `s`). */
const SNAPSHOT = (
  trx: Knex,
  at: string,
) => `INSERT INTO status_edits (status_id, account_id, text, content, spoiler_text, sensitive, media_ids, poll_options, created_at)
  SELECT s.id, s.account_id, s.text, s.content, s.spoiler_text, s.sensitive,
    (SELECT ${dialectOf(trx).jsonArrayAgg('CAST(m.id AS TEXT)', 'm.id')} FROM (SELECT id FROM media_attachments WHERE status_id = s.id ORDER BY id) m),
    (SELECT options FROM polls WHERE status_id = s.id), ${at}
  FROM statuses s WHERE s.id = ?1`;

export class StatusEditsRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** Before a status changes: its original becomes the first entry of its history (once). */
  async beforeEdit(trx: Knex, statusId: string): Promise<void> {
    await numberedRows(
      trx,
      `${SNAPSHOT(trx, 'coalesce(s.edited_at, s.created_at)')} AND NOT EXISTS (SELECT 1 FROM status_edits e WHERE e.status_id = s.id)`,
      [statusId],
    );
  }

  /** After it changed (edited_at set): the new version. */
  async afterEdit(trx: Knex, statusId: string): Promise<void> {
    await numberedRows(trx, SNAPSHOT(trx, 'coalesce(s.edited_at, s.updated_at)'), [statusId]);
  }

  /** The versions of a status, oldest first; empty when it was never edited. */
  async history(statusId: string): Promise<StatusEditRow[]> {
    const rows = await this.ctx.reader.all<
      Omit<StatusEditRow, 'media_ids' | 'poll_options'> & { media_ids: string; poll_options: string | null }
    >(
      `SELECT CAST(account_id AS TEXT) AS account_id, content, spoiler_text, sensitive, media_ids, poll_options, created_at FROM status_edits WHERE status_id = ? ORDER BY id`,
      [statusId],
    );
    return rows.map((row) => ({
      ...row,
      media_ids: JSON.parse(row.media_ids) as string[],
      poll_options: row.poll_options === null ? null : (JSON.parse(row.poll_options) as string[]),
    }));
  }
}
