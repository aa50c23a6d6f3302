/** SQL of what accounts feature: hashtags (with their use in public posts) and endorsed accounts. */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectOf, rawRows } from '../../store/dialect.js';
import { cursorPageSql, type PageQuery } from '../store/paging.js';
import { visibleBy } from '../statuses/visibility.js';

export interface FeaturedTagRow {
  id: string;
  name: string;
  /** The account's public and unlisted statuses with the tag, and the newest one's time. */
  statuses_count: number;
  last_status_at: string | null;
}

export const MAX_FEATURED_TAGS = 10;

const ANYONE_SEES = visibleBy('NULL');

export class FeaturedRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** With the count and newest date of the statuses anyone may see (statuses/visibility.ts), as the profile shows them to all. */
  tags(accountId: string): Promise<FeaturedTagRow[]> {
    return this.ctx.reader.all<FeaturedTagRow>(
      `SELECT CAST(f.id AS TEXT) AS id, t.name,
        (SELECT count(*) FROM status_tags st JOIN statuses s ON s.id = st.status_id
          WHERE st.tag_id = f.tag_id AND s.account_id = f.account_id AND s.deleted_at IS NULL AND ${ANYONE_SEES}) AS statuses_count,
        (SELECT max(s.created_at) FROM status_tags st JOIN statuses s ON s.id = st.status_id
          WHERE st.tag_id = f.tag_id AND s.account_id = f.account_id AND s.deleted_at IS NULL AND ${ANYONE_SEES}) AS last_status_at
      FROM featured_tags f JOIN tags t ON t.id = f.tag_id WHERE f.account_id = ? ORDER BY f.id`,
      [accountId],
    );
  }

  /** Features a tag (once); false when the account already features the most it may. */
  async feature(accountId: string, tagId: number): Promise<boolean> {
    return this.ctx.db.transaction(async (trx) => {
      const [{ n }] = await rawRows<{ n: number }>(
        trx,
        `SELECT count(*) AS n FROM featured_tags WHERE account_id = ? AND tag_id != ?`,
        [accountId, tagId],
      );
      if (n >= MAX_FEATURED_TAGS) return false;
      await trx.raw(
        `INSERT INTO featured_tags (account_id, tag_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
        [accountId, tagId, new Date(this.ctx.now()).toISOString()],
      );
      return true;
    });
  }

  async unfeatureById(accountId: string, id: string): Promise<boolean> {
    const rows = await rawRows(this.ctx.db, `DELETE FROM featured_tags WHERE account_id = ? AND id = ? RETURNING id`, [
      accountId,
      id,
    ]);
    return rows.length > 0;
  }

  async unfeatureTag(accountId: string, tagId: number): Promise<void> {
    await this.ctx.db.raw(`DELETE FROM featured_tags WHERE account_id = ? AND tag_id = ?`, [accountId, tagId]);
  }

  /** Hashtags the account used lately and does not feature yet, most used first. */
  suggestions(accountId: string): Promise<Array<{ id: number; name: string }>> {
    return this.ctx.reader.all(
      `SELECT t.id, t.name FROM (SELECT st.tag_id, count(*) AS uses FROM (
          SELECT id FROM statuses WHERE account_id = ?1 AND deleted_at IS NULL ORDER BY id DESC LIMIT 1000) s
        JOIN status_tags st ON st.status_id = s.id GROUP BY st.tag_id) used
      JOIN tags t ON t.id = used.tag_id
      WHERE NOT EXISTS (SELECT 1 FROM featured_tags f WHERE f.account_id = ?1 AND f.tag_id = t.id)
      ORDER BY used.uses DESC, t.name LIMIT 10`,
      [accountId],
    );
  }

  async featuring(accountId: string, tagIds: readonly number[]): Promise<Set<number>> {
    if (tagIds.length === 0) return new Set();
    const rows = await this.ctx.reader.all<{ tag_id: number }>(
      `SELECT tag_id FROM featured_tags WHERE account_id = ? AND tag_id IN ${dialectOf(this.ctx.db).idSet()}`,
      [accountId, JSON.stringify(tagIds)],
    );
    return new Set(rows.map((row) => row.tag_id));
  }

  /** Endorses an account the endorser follows; false when they do not follow it. */
  async endorse(accountId: string, targetId: string): Promise<boolean> {
    // knex numbers its own placeholders: plain ones only.
    const rows = await rawRows(
      this.ctx.db,
      `INSERT INTO account_pins (account_id, target_account_id, created_at)
      SELECT CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT) WHERE EXISTS (SELECT 1 FROM follows WHERE account_id = ? AND target_account_id = ?)
      ON CONFLICT (account_id, target_account_id) DO UPDATE SET created_at = account_pins.created_at RETURNING id`,
      [accountId, targetId, new Date(this.ctx.now()).toISOString(), accountId, targetId],
    );
    return rows.length > 0;
  }

  /** Ends the endorsement; `trx` when it goes with another write (the follow it needed ending). */
  async unendorse(accountId: string, targetId: string, trx: Knex = this.ctx.db): Promise<void> {
    await trx.raw(`DELETE FROM account_pins WHERE account_id = ? AND target_account_id = ?`, [accountId, targetId]);
  }

  /** The accounts an account endorses, newest endorsement first, paged by it. */
  endorsed(accountId: string, page: PageQuery): Promise<Array<{ edge_id: string; account_id: string }>> {
    const { sql, params } = cursorPageSql(
      {
        select: 'CAST(p.id AS TEXT) AS edge_id, CAST(p.target_account_id AS TEXT) AS account_id',
        from: 'account_pins p JOIN accounts a ON a.id = p.target_account_id',
        where: 'p.account_id = ?1 AND a.suspended_at IS NULL',
        cursor: 'p.id',
      },
      [accountId],
      page,
    );
    return this.ctx.reader.all(sql, params);
  }
}
