/** SQL for announcements, their dismissals (read state) and reactions. */
import { dialectOf, idList, rawRows } from '../../store/dialect.js';
import type { SocialContext } from '../context.js';

export interface AnnouncementRow {
  id: string;
  text: string;
  content: string;
  starts_at: string | null;
  ends_at: string | null;
  all_day: number;
  published_at: string;
  updated_at: string;
}
export interface ReactionCount {
  announcement_id: string;
  name: string;
  count: number;
  me: number;
}

const COLUMNS = `CAST(id AS TEXT) AS id, text, content, starts_at, ends_at, all_day, published_at, updated_at`;

export class AnnouncementsRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** Announcements that have not ended, oldest first; dismissed ones only when asked. */
  list(accountId: string, nowIso: string, withDismissed: boolean): Promise<Array<AnnouncementRow & { read: number }>> {
    return this.ctx.reader.all(
      `SELECT ${COLUMNS}, EXISTS (SELECT 1 FROM announcement_dismissals d WHERE d.announcement_id = announcements.id AND d.account_id = ?1) AS read
      FROM announcements WHERE (ends_at IS NULL OR ends_at > ?2) AND (?3 = 1 OR NOT EXISTS (SELECT 1 FROM announcement_dismissals d WHERE d.announcement_id = announcements.id AND d.account_id = ?1))
      ORDER BY published_at, id`,
      [accountId, nowIso, withDismissed ? 1 : 0],
    );
  }

  one(id: string): Promise<AnnouncementRow | undefined> {
    return this.ctx.reader.get<AnnouncementRow>(`SELECT ${COLUMNS} FROM announcements WHERE id = ?`, [id]);
  }

  reactions(accountId: string, ids: readonly string[]): Promise<ReactionCount[]> {
    // The ids table's bare ? comes first in the text: the first parameter on both engines.
    return this.ctx.reader.all<ReactionCount>(
      `WITH wanted AS (SELECT CAST(ids.value AS BIGINT) AS id FROM ${dialectOf(this.ctx.db).idsTable('ids')})
      SELECT CAST(announcement_id AS TEXT) AS announcement_id, name, count(*) AS count,
        max(CASE WHEN account_id = ?2 THEN 1 ELSE 0 END) AS me
      FROM announcement_reactions WHERE announcement_id IN (SELECT id FROM wanted)
      GROUP BY announcement_id, name ORDER BY min(created_at)`,
      [idList(ids), accountId],
    );
  }

  async insert(row: Omit<AnnouncementRow, 'id'>): Promise<string> {
    const rows = await rawRows<{ id: string }>(
      this.ctx.db,
      `INSERT INTO announcements (text, content, starts_at, ends_at, all_day, published_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING CAST(id AS TEXT) AS id`,
      [row.text, row.content, row.starts_at, row.ends_at, Boolean(row.all_day), row.published_at, row.updated_at],
    );
    return rows[0].id;
  }

  async dismiss(id: string, accountId: string): Promise<void> {
    await this.ctx.db.raw(
      `INSERT INTO announcement_dismissals (announcement_id, account_id) VALUES (?, ?) ON CONFLICT DO NOTHING`,
      [id, accountId],
    );
  }

  async react(id: string, accountId: string, name: string, nowIso: string): Promise<void> {
    await this.ctx.db.raw(
      `INSERT INTO announcement_reactions (announcement_id, account_id, name, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [id, accountId, name, nowIso],
    );
  }

  async unreact(id: string, accountId: string, name: string): Promise<void> {
    await this.ctx.db.raw(
      `DELETE FROM announcement_reactions WHERE announcement_id = ? AND account_id = ? AND name = ?`,
      [id, accountId, name],
    );
  }

  /** How many accounts reacted with `name`, read on the writer so a reaction just stored counts. */
  async reactionCount(id: string, name: string): Promise<number> {
    const rows = await rawRows<{ count: number }>(
      this.ctx.db,
      `SELECT count(*) AS count FROM announcement_reactions WHERE announcement_id = ? AND name = ?`,
      [id, name],
    );
    return rows[0]?.count ?? 0;
  }

  async customEmoji(shortcode: string): Promise<{ image_url: string; static_url: string } | undefined> {
    return this.ctx.reader.get(
      `SELECT image_url, static_url FROM custom_emojis WHERE shortcode = ? AND domain IS NULL AND NOT disabled`,
      [shortcode],
    );
  }
}
