/** SQL for statuses and what accounts do to them (favourites, reblogs, bookmarks, pins, conversation mutes). */
import type { Knex } from 'knex';
import type { BoundSql } from '../../store/dialect.js';
import type { SocialContext } from '../context.js';
import { visibleBy } from './visibility.js';
import { dialectOf, idList, rawRows, rowsOfLast } from '../../store/dialect.js';
import { engineSql } from '../../store/engine-sql.js';

export interface StatusRow {
  id: string;
  account_id: string;
  uri: string;
  url: string | null;
  local: number;
  text: string;
  content: string;
  spoiler_text: string;
  sensitive: number;
  visibility: string;
  language: string | null;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  reblog_of_id: string | null;
  conversation_id: string | null;
  application_id: string | null;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  created_at: string;
  edited_at: string | null;
  deleted_at: string | null;
  /** The custom emoji its text uses (JSON of StoredEmoji). */
  emojis: string;
}

export const STATUS_COLUMNS = `CAST(s.id AS TEXT) AS id, CAST(s.account_id AS TEXT) AS account_id, s.uri, s.url, s.local, s.text, s.content,
  s.spoiler_text, s.sensitive, s.visibility, s.language, CAST(s.in_reply_to_id AS TEXT) AS in_reply_to_id,
  CAST(s.in_reply_to_account_id AS TEXT) AS in_reply_to_account_id, CAST(s.reblog_of_id AS TEXT) AS reblog_of_id,
  CAST(s.conversation_id AS TEXT) AS conversation_id, CAST(s.application_id AS TEXT) AS application_id,
  s.replies_count, s.reblogs_count, s.favourites_count, s.created_at, s.edited_at, s.deleted_at, s.emojis`;

export const STATUS_FIELDS = [
  'id',
  'account_id',
  'uri',
  'url',
  'local',
  'text',
  'content',
  'spoiler_text',
  'sensitive',
  'visibility',
  'language',
  'in_reply_to_id',
  'in_reply_to_account_id',
  'reblog_of_id',
  'conversation_id',
  'application_id',
  'replies_count',
  'reblogs_count',
  'favourites_count',
  'created_at',
  'edited_at',
  'deleted_at',
  'emojis',
] as const;

/** What a status's JSON is made from beside its row: mentioned ids, its application, attached media or hashtags. */
export interface RenderRow extends StatusRow {
  mention_ids: string[];
  app_name: string | null;
  app_website: string | null;
  /** Whether media or hashtags are attached: their decorators skip pages that have none. */
  has_media: number;
  has_tags: number;
  /** Its poll's end: null without a poll, '' for a poll that never ends. */
  poll_ends: string | null;
}

export const RENDER_FIELDS = [
  ...STATUS_FIELDS,
  'mention_ids',
  'app_name',
  'app_website',
  'has_media',
  'has_tags',
  'poll_ends',
] as const;

/**
 * The viewer's own relation to a status, as bits of one number. Above `voted`, bit 6 + i is set
 * when the viewer chose option i of its poll (options 0–39: the flags stay exact in a double).
 */
export const VIEWER_FLAG = { favourited: 1, reblogged: 2, bookmarked: 4, pinned: 8, muted: 16, voted: 32 } as const;
export const VOTE_CHOICE_SHIFT = 6;
export const MAX_FLAGGED_CHOICES = 40;

/** A status's render version and viewer flags; its row only when the caller's version is not current. */
export interface ChangedRenderRow {
  id: string;
  version: number;
  flags: number;
  visible: number;
  row: (Omit<RenderRow, 'mention_ids'> & { mention_ids: string | string[] }) | null;
}

export type ActionTable = 'favourites' | 'bookmarks' | 'status_pins';

const MENTIONS_SQL = engineSql(
  (dialect) => `SELECT CAST(status_id AS TEXT) AS status_id, CAST(account_id AS TEXT) AS account_id FROM mentions
  WHERE status_id IN (SELECT CAST(i.value AS BIGINT) FROM ${dialect.idsTable('i')}) ORDER BY id`,
);

/** Which parts a Note carries a status has (1 or 0 each), so that its renderer reads only those. */
export interface StatusParts {
  has_mentions: number;
  has_tags: number;
  has_media: number;
  has_poll: number;
}

const VISIBLE_BY_ID_SQL = `SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.id = ?1 AND s.deleted_at IS NULL AND ${visibleBy('?2')}`;

export class StatusesRepo {
  constructor(private readonly ctx: SocialContext) {}

  byId(id: string): Promise<StatusRow | undefined> {
    return this.ctx.reader.get<StatusRow>(`SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.id = ?`, [id]);
  }

  /** `byId` with the parts it has (`StatusParts`), in the same statement. */
  byIdWithParts(id: string): Promise<(StatusRow & StatusParts) | undefined> {
    return this.ctx.reader.get<StatusRow & StatusParts>(
      `SELECT ${STATUS_COLUMNS},
        EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id) AS has_mentions,
        EXISTS (SELECT 1 FROM status_tags st WHERE st.status_id = s.id) AS has_tags,
        EXISTS (SELECT 1 FROM media_attachments ma WHERE ma.status_id = s.id) AS has_media,
        EXISTS (SELECT 1 FROM polls p WHERE p.status_id = s.id) AS has_poll
      FROM statuses s WHERE s.id = ?`,
      [id],
    );
  }

  /** The status if it is not deleted and the viewer (null: no one signed in) may see it. */
  visibleById(id: string, viewerId: string | null): Promise<StatusRow | undefined> {
    return this.ctx.reader.get<StatusRow>(VISIBLE_BY_ID_SQL, [id, viewerId]);
  }

  /** Who each status mentions, in mention order (federation addresses its deliveries with it). */
  mentions(statusIds: readonly string[]): Promise<Array<{ status_id: string; account_id: string }>> {
    if (statusIds.length === 0) return Promise.resolve([]);
    return this.ctx.reader.all(MENTIONS_SQL(this.ctx.reader.engine), [idList(statusIds)]);
  }

  async blocks(accountId: string, targetId: string): Promise<boolean> {
    return Boolean(
      await this.ctx.reader.get(`SELECT 1 AS x FROM blocks WHERE account_id = ? AND target_account_id = ?`, [
        accountId,
        targetId,
      ]),
    );
  }

  async reblogBy(accountId: string, statusId: string): Promise<StatusRow | undefined> {
    return this.ctx.reader.get<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.account_id = ? AND s.reblog_of_id = ? AND s.deleted_at IS NULL`,
      [accountId, statusId],
    );
  }

  /** A status by its ActivityPub id (federation's lookups), deleted ones included. */
  byUri(
    uri: string,
  ): Promise<{ id: string; account_id: string; reblog_of_id: string | null; deleted_at: string | null } | undefined> {
    return this.ctx.reader.get(
      `SELECT CAST(id AS TEXT) AS id, CAST(account_id AS TEXT) AS account_id, CAST(reblog_of_id AS TEXT) AS reblog_of_id, deleted_at FROM statuses WHERE uri = ?`,
      [uri],
    );
  }

  /** The id of a status not deleted whose ActivityPub id or web address is `address` (search resolve). */
  async idAt(address: string): Promise<string | undefined> {
    const row = await this.ctx.reader.get<{ id: string }>(
      `SELECT CAST(id AS TEXT) AS id FROM statuses WHERE (uri = ?1 OR url = ?1) AND deleted_at IS NULL`,
      [address],
    );
    return row?.id;
  }

  /** An edit's new text and terms (the history is kept by StatusEditsRepo around it). */
  async updateEdited(trx: Knex, statusId: string, patch: Record<string, unknown>): Promise<void> {
    await trx('statuses').whereRaw('id = ?', [statusId]).update(patch);
  }

  async insertStatus(trx: Knex, row: Record<string, unknown>): Promise<void> {
    await trx('statuses').insert(row);
  }

  /**
   * A status that starts a conversation, with the conversation's row (the status's id as its own)
   * written beside it: one statement where the engine can (`Dialect.withWrite`).
   */
  async insertStartingConversation(trx: Knex, row: Record<string, unknown> & { id: string }): Promise<void> {
    const conversation: BoundSql = {
      sql: `INSERT INTO conversations (id, created_at) VALUES (?, ?)`,
      bindings: [row.id, new Date(this.ctx.now()).toISOString()],
    };
    const { sql, bindings } = trx('statuses')
      .insert({ ...row, conversation_id: row.id })
      .toSQL();
    await rowsOfLast(trx, dialectOf(trx).withWrite(conversation, { sql, bindings }));
  }

  /** Adds the status's mentions of `accountIds` (one statement); returns those it did not have yet. */
  async insertMentions(trx: Knex, statusId: string, accountIds: readonly string[]): Promise<string[]> {
    if (accountIds.length === 0) return [];
    const rows = await rawRows<{ id: string }>(
      trx,
      `INSERT INTO mentions (status_id, account_id) VALUES ${accountIds.map(() => '(?, ?)').join(', ')}
      ON CONFLICT DO NOTHING RETURNING CAST(account_id AS TEXT) AS id`,
      accountIds.flatMap((accountId) => [statusId, accountId]),
    );
    return rows.map((row) => row.id);
  }

  /** Inserts (account, status) into an action table; false when it was already there. */
  async addAction(trx: Knex, table: ActionTable, accountId: string, statusId: string): Promise<boolean> {
    const rows = await rawRows(
      trx,
      `INSERT INTO ${table} (account_id, status_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`,
      [accountId, statusId, new Date(this.ctx.now()).toISOString()],
    );
    return rows.length > 0;
  }

  async removeAction(trx: Knex, table: ActionTable, accountId: string, statusId: string): Promise<boolean> {
    const rows = await rawRows(trx, `DELETE FROM ${table} WHERE account_id = ? AND status_id = ? RETURNING id`, [
      accountId,
      statusId,
    ]);
    return rows.length > 0;
  }

  async countPins(accountId: string): Promise<number> {
    const row = await this.ctx.reader.get<{ n: number }>(
      `SELECT count(*) AS n FROM status_pins p JOIN statuses s ON s.id = p.status_id WHERE p.account_id = ? AND s.deleted_at IS NULL`,
      [accountId],
    );
    return row?.n ?? 0;
  }

  async adjust(
    trx: Knex,
    statusId: string,
    column: 'replies_count' | 'reblogs_count' | 'favourites_count',
    delta: number,
  ): Promise<void> {
    const floor = dialectOf(trx).greatest('0', `${column} + ?`);
    await trx.raw(`UPDATE statuses SET ${column} = ${floor} WHERE id = ?`, [delta, statusId]);
  }

  async softDelete(trx: Knex, statusId: string): Promise<void> {
    await trx.raw(`UPDATE statuses SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, [
      new Date(this.ctx.now()).toISOString(),
      statusId,
    ]);
  }

  /** Live reblogs of a status (deleted with it). */
  reblogsOf(trx: Knex, statusId: string): Promise<Array<{ id: string; account_id: string }>> {
    return rawRows(
      trx,
      `SELECT CAST(id AS TEXT) AS id, CAST(account_id AS TEXT) AS account_id FROM statuses WHERE reblog_of_id = ? AND deleted_at IS NULL`,
      [statusId],
    );
  }

  async muteConversation(accountId: string, conversationId: string, mute: boolean): Promise<void> {
    if (mute)
      await this.ctx.db.raw(
        `INSERT INTO conversation_mutes (account_id, conversation_id) VALUES (?, ?) ON CONFLICT DO NOTHING`,
        [accountId, conversationId],
      );
    else
      await this.ctx.db.raw(`DELETE FROM conversation_mutes WHERE account_id = ? AND conversation_id = ?`, [
        accountId,
        conversationId,
      ]);
  }

  /** Accounts who favourited (or reblogged) a status, paged by the action's id, newest first. */
  actors(
    kind: 'favourites' | 'reblogs',
    statusId: string,
    page: { maxId?: string; sinceId?: string; minId?: string; limit: number },
  ): Promise<Array<{ edge_id: string; account_id: string }>> {
    const ascending = page.minId !== undefined;
    const source =
      kind === 'favourites'
        ? `SELECT id, account_id FROM favourites WHERE status_id = ?1`
        : `SELECT id, account_id FROM statuses WHERE reblog_of_id = ?1 AND deleted_at IS NULL`;
    return this.ctx.reader.all(
      `SELECT * FROM (SELECT CAST(id AS TEXT) AS edge_id, CAST(account_id AS TEXT) AS account_id, id AS n FROM (${source}) AS e
        WHERE id < coalesce(?2, 9223372036854775807) AND id > coalesce(?3, CAST(0 AS BIGINT)) ORDER BY id ${ascending ? 'ASC' : 'DESC'} LIMIT ?4) AS p ORDER BY n DESC`,
      [statusId, page.maxId ?? null, (ascending ? page.minId : page.sinceId) ?? null, page.limit],
    );
  }

  /** The viewer's favourites or bookmarks, paged by the action's id. */
  actedOn(
    table: 'favourites' | 'bookmarks',
    accountId: string,
    page: { maxId?: string; sinceId?: string; minId?: string; limit: number },
  ): Promise<Array<{ edge_id: string; status_id: string }>> {
    const ascending = page.minId !== undefined;
    return this.ctx.reader.all(
      `SELECT * FROM (SELECT CAST(t.id AS TEXT) AS edge_id, CAST(t.status_id AS TEXT) AS status_id, t.id AS n FROM ${table} t
        JOIN statuses s ON s.id = t.status_id AND s.deleted_at IS NULL
        WHERE t.account_id = ?1 AND t.id < coalesce(?2, 9223372036854775807) AND t.id > coalesce(?3, CAST(0 AS BIGINT))
        ORDER BY t.id ${ascending ? 'ASC' : 'DESC'} LIMIT ?4) AS p ORDER BY n DESC`,
      [accountId, page.maxId ?? null, (ascending ? page.minId : page.sinceId) ?? null, page.limit],
    );
  }

  /** An account's statuses the viewer (null: no one signed in) may see, newest first. */
  ofAccount(
    accountId: string,
    viewerId: string | null,
    opts: { pinned: boolean; excludeReplies: boolean; excludeReblogs: boolean },
    page: { maxId?: string; sinceId?: string; minId?: string; limit: number },
  ): Promise<Array<{ id: string }>> {
    const ascending = page.minId !== undefined;
    const join = opts.pinned ? 'JOIN status_pins p ON p.status_id = s.id AND p.account_id = s.account_id' : '';
    const cursorColumn = 's.id';
    let where = `s.account_id = ?1 AND s.deleted_at IS NULL AND ${visibleBy('?5')}`;
    if (opts.excludeReplies) where += ' AND (s.in_reply_to_id IS NULL OR s.in_reply_to_account_id = s.account_id)';
    if (opts.excludeReblogs) where += ' AND s.reblog_of_id IS NULL';
    return this.ctx.reader.all(
      `SELECT id FROM (SELECT CAST(s.id AS TEXT) AS id, ${cursorColumn} AS n FROM statuses s ${join}
        WHERE ${where} AND ${cursorColumn} < coalesce(?2, 9223372036854775807) AND ${cursorColumn} > coalesce(?3, CAST(0 AS BIGINT))
        ORDER BY ${cursorColumn} ${ascending ? 'ASC' : 'DESC'} LIMIT ?4) AS p ORDER BY n DESC`,
      [accountId, page.maxId ?? null, (ascending ? page.minId : page.sinceId) ?? null, page.limit, viewerId],
    );
  }
}
