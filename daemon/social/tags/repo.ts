/** SQL for hashtags, the statuses that carry them, and who follows them. */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectOf, rawRows } from '../../store/dialect.js';
import { cursorPageSql, type PageQuery } from '../store/paging.js';
import { visibleBy } from '../statuses/visibility.js';

export interface TagRow {
  id: number;
  name: string;
  reviewed_at: string | null;
  listable: number;
}

export class TagsRepo {
  constructor(private readonly ctx: SocialContext) {}

  /**
   * Tags a status with `names` (made as tags when new): one statement when every tag exists, three
   * when some are new, whatever their number.
   */
  async tagStatus(trx: Knex, statusId: string, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    // Told apart as the engines' lower() tells them apart (ASCII letters only).
    const distinct = new Set(names.map((name) => name.replace(/[A-Z]+/g, (letters) => letters.toLowerCase())));
    if ((await this.linkTags(trx, statusId, names)) >= distinct.size) return;
    const now = new Date(this.ctx.now()).toISOString();
    await trx.raw(
      `INSERT INTO tags (name, created_at) VALUES ${names.map(() => '(?, ?)').join(', ')} ON CONFLICT DO NOTHING`,
      names.flatMap((name) => [name, now]),
    );
    await this.linkTags(trx, statusId, names);
  }

  /** Links the status to the tags of `names` that exist: how many links it made. */
  private async linkTags(trx: Knex, statusId: string, names: readonly string[]): Promise<number> {
    const rows = await rawRows(
      trx,
      `INSERT INTO status_tags (status_id, tag_id) SELECT CAST(? AS BIGINT), id FROM tags
      WHERE lower(name) IN (SELECT lower(n.value) FROM ${dialectOf(trx).idsTable('n')}) ON CONFLICT DO NOTHING
      RETURNING tag_id`,
      [statusId, JSON.stringify(names)],
    );
    return rows.length;
  }

  /** Replaces a status's hashtags (a peer's Update of its note). */
  async retagStatus(trx: Knex, statusId: string, names: readonly string[]): Promise<void> {
    await trx.raw(`DELETE FROM status_tags WHERE status_id = ?`, [statusId]);
    await this.tagStatus(trx, statusId, names);
  }

  /** The tagged status's source text and stored HTML, read in the posting transaction. */
  async statusText(trx: Knex, statusId: string): Promise<{ text: string; content: string }> {
    const rows = await rawRows<{ text: string; content: string }>(
      trx,
      `SELECT text, content FROM statuses WHERE id = ?`,
      [statusId],
    );
    return rows[0];
  }

  /** Stores the status's HTML with its hashtags linked. */
  async linkStatusContent(trx: Knex, statusId: string, content: string): Promise<void> {
    await trx.raw(`UPDATE statuses SET content = ? WHERE id = ?`, [content, statusId]);
  }

  ofStatuses(statusIds: readonly string[]): Promise<Array<{ status_id: string; name: string }>> {
    if (statusIds.length === 0) return Promise.resolve([]);
    return this.ctx.reader.all(
      `SELECT CAST(st.status_id AS TEXT) AS status_id, t.name FROM status_tags st JOIN tags t ON t.id = st.tag_id
      WHERE st.status_id IN ${dialectOf(this.ctx.db).idSet()} ORDER BY lower(t.name)`,
      [JSON.stringify(statusIds)],
    );
  }

  byNames(names: readonly string[]): Promise<TagRow[]> {
    return this.ctx.reader.all<TagRow>(
      `SELECT id, name, reviewed_at, listable FROM tags WHERE lower(name) IN (SELECT lower(n.value) FROM ${dialectOf(this.ctx.db).idsTable('n')})`,
      [JSON.stringify(names)],
    );
  }

  /**
   * Tags whose name starts with `prefix` (or equals it when `exact`), most used first. `reviewedOnly`
   * still keeps the exact name, as Mastodon does: a person typing a whole tag means that one.
   */
  search(
    prefix: string,
    options: { exact: boolean; reviewedOnly: boolean; limit: number; offset: number },
  ): Promise<TagRow[]> {
    const where = options.exact
      ? `lower(name) = lower(?1)`
      : `lower(name) >= lower(?1) AND lower(name) < lower(?1) || ${dialectOf(this.ctx.db).topCharacter}`;
    return this.ctx.reader.all<TagRow>(
      `SELECT id, name, reviewed_at, listable FROM tags WHERE ${where} AND listable
      ${options.reviewedOnly ? 'AND (reviewed_at IS NOT NULL OR lower(name) = lower(?1))' : ''}
      ORDER BY (lower(name) = lower(?1)) DESC, (SELECT count(*) FROM status_tags st WHERE st.tag_id = tags.id) DESC, name LIMIT ?2 OFFSET ?3`,
      [prefix, options.limit, options.offset],
    );
  }

  /** A tag by name, made if it is new (following a tag nobody used yet). */
  async ensure(name: string): Promise<TagRow> {
    await this.ctx.db.raw(`INSERT INTO tags (name, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING`, [
      name,
      new Date(this.ctx.now()).toISOString(),
    ]);
    return (await this.byNames([name]))[0];
  }

  /** Of `tagIds`, those `viewerId` follows. */
  async followedAmong(viewerId: string | null, tagIds: readonly number[]): Promise<Set<number>> {
    if (!viewerId || tagIds.length === 0) return new Set();
    const rows = await this.ctx.reader.all<{ tag_id: number }>(
      `SELECT tag_id FROM tag_follows WHERE account_id = ? AND tag_id IN ${dialectOf(this.ctx.db).idSet()}`,
      [viewerId, JSON.stringify(tagIds)],
    );
    return new Set(rows.map((row) => row.tag_id));
  }

  async follow(accountId: string, tagId: number): Promise<void> {
    await this.ctx.db.raw(
      `INSERT INTO tag_follows (account_id, tag_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
      [accountId, tagId, new Date(this.ctx.now()).toISOString()],
    );
  }

  async unfollow(accountId: string, tagId: number): Promise<void> {
    await this.ctx.db.raw(`DELETE FROM tag_follows WHERE account_id = ? AND tag_id = ?`, [accountId, tagId]);
  }

  /** The tags an account follows, newest follow first, paged by the follow. */
  followed(accountId: string, page: PageQuery): Promise<Array<TagRow & { edge_id: string }>> {
    const { sql, params } = cursorPageSql(
      {
        select: 't.id, t.name, t.reviewed_at, t.listable, CAST(tf.id AS TEXT) AS edge_id',
        from: 'tag_follows tf JOIN tags t ON t.id = tf.tag_id',
        where: 'tf.account_id = ?1',
        cursor: 'tf.id',
      },
      [accountId],
      page,
    );
    return this.ctx.reader.all(sql, params);
  }

  /**
   * Uses per day over the last week, newest day first (Mastodon's tag history), of the statuses
   * anyone may see (statuses/visibility.ts): the history is shown to all.
   */
  history(tagId: number, nowMs: number): Promise<Array<{ day: string; uses: number; accounts: number }>> {
    const since = new Date(nowMs - 7 * 86400_000).toISOString();
    return this.ctx.reader.all(
      `SELECT substr(s.created_at, 1, 10) AS day, count(*) AS uses, count(DISTINCT s.account_id) AS accounts
      FROM status_tags st JOIN statuses s ON s.id = st.status_id WHERE st.tag_id = ? AND s.created_at >= ? AND s.deleted_at IS NULL AND ${visibleBy('NULL')}
      GROUP BY day ORDER BY day DESC`,
      [tagId, since],
    );
  }
}
