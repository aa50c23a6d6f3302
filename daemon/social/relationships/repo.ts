/** SQL for follows, follow requests, blocks, mutes, domain blocks and private notes. */
import type { Knex } from 'knex';
import { cursorPageSql } from '../store/paging.js';
import type { SocialContext } from '../context.js';
import { dialectOf, rawRows } from '../../store/dialect.js';

export interface RelationshipRow {
  id: string;
  following: number | null;
  showing_reblogs: number | null;
  notifying: number | null;
  languages: string | null;
  followed_by: number;
  blocking: number;
  blocked_by: number;
  muting: number;
  muting_notifications: number | null;
  requested: number;
  requested_by: number;
  domain_blocking: number;
  endorsed: number;
  note: string | null;
}

export type EdgeTable = 'follows' | 'follow_requests' | 'blocks' | 'mutes';

export interface ListedEdge {
  edge_id: string;
  account_id: string;
  /** Mutes only: when the mute ends (null: never). */
  mute_expires_at?: string | null;
}

export class RelationshipsRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** The viewer's relationship to each target account, in one query. */
  relationships(viewerId: string, targetIds: readonly string[]): Promise<RelationshipRow[]> {
    return this.ctx.reader.all<RelationshipRow>(
      `
      SELECT CAST(t.id AS TEXT) AS id,
        f.id IS NOT NULL AS following, f.show_reblogs AS showing_reblogs, f.notify AS notifying, f.languages AS languages,
        EXISTS (SELECT 1 FROM follows WHERE account_id = t.id AND target_account_id = ?1) AS followed_by,
        EXISTS (SELECT 1 FROM blocks WHERE account_id = ?1 AND target_account_id = t.id) AS blocking,
        EXISTS (SELECT 1 FROM blocks WHERE account_id = t.id AND target_account_id = ?1) AS blocked_by,
        m.account_id IS NOT NULL AS muting, m.hide_notifications AS muting_notifications,
        EXISTS (SELECT 1 FROM follow_requests WHERE account_id = ?1 AND target_account_id = t.id) AS requested,
        EXISTS (SELECT 1 FROM follow_requests WHERE account_id = t.id AND target_account_id = ?1) AS requested_by,
        (t.domain IS NOT NULL AND EXISTS (SELECT 1 FROM account_domain_blocks WHERE account_id = ?1 AND domain = lower(t.domain))) AS domain_blocking,
        EXISTS (SELECT 1 FROM account_pins WHERE account_id = ?1 AND target_account_id = t.id) AS endorsed,
        (SELECT comment FROM account_notes WHERE account_id = ?1 AND target_account_id = t.id) AS note
      FROM accounts t
      LEFT JOIN follows f ON f.account_id = ?1 AND f.target_account_id = t.id
      LEFT JOIN mutes m ON m.account_id = ?1 AND m.target_account_id = t.id AND (m.expires_at IS NULL OR m.expires_at > ?3)
      WHERE t.id IN ${dialectOf(this.ctx.db).idSet('?2')}`,
      [viewerId, JSON.stringify(targetIds), new Date(this.ctx.now()).toISOString()],
    );
  }

  edge(table: EdgeTable, accountId: string, targetId: string): Promise<Record<string, unknown> | undefined> {
    return this.ctx.reader.get(
      `SELECT *, CAST(id AS TEXT) AS id FROM ${table} WHERE account_id = ? AND target_account_id = ?`,
      [accountId, targetId],
    );
  }

  async exists(table: EdgeTable, accountId: string, targetId: string): Promise<boolean> {
    return Boolean(await this.edge(table, accountId, targetId));
  }

  /** True when the mute is in force (not expired). */
  async mutes(accountId: string, targetId: string, forNotifications = false): Promise<boolean> {
    const row = await this.ctx.reader.get<{ x: number }>(
      `SELECT 1 AS x FROM mutes WHERE account_id = ? AND target_account_id = ? AND (expires_at IS NULL OR expires_at > ?)${forNotifications ? ' AND hide_notifications' : ''}`,
      [accountId, targetId, new Date(this.ctx.now()).toISOString()],
    );
    return Boolean(row);
  }

  async insertEdge(trx: Knex, table: EdgeTable, row: Record<string, unknown>): Promise<boolean> {
    const result = await rawRows(
      trx,
      `INSERT INTO ${table} (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row)
        .map(() => '?')
        .join(', ')})
      ON CONFLICT (account_id, target_account_id) DO NOTHING RETURNING id`,
      Object.values(row) as Knex.RawBinding[],
    );
    return result.length > 0;
  }

  /** Changes a follow's or a follow request's options (reblogs, notify, languages). */
  async updateFollowOptions(
    table: 'follows' | 'follow_requests',
    accountId: string,
    targetId: string,
    changes: Record<string, unknown>,
  ): Promise<void> {
    await this.ctx
      .db(table)
      .whereRaw('account_id = ? AND target_account_id = ?', [accountId, targetId])
      .update(changes);
  }

  /** A follow request's options and Follow activity, as `trx` sees it. */
  async followRequestIn(
    trx: Knex,
    accountId: string,
    targetId: string,
  ): Promise<{ show_reblogs: number; notify: number; languages: string | null; uri: string | null } | undefined> {
    const rows = await rawRows<{ show_reblogs: number; notify: number; languages: string | null; uri: string | null }>(
      trx,
      `SELECT show_reblogs, notify, languages, uri FROM follow_requests WHERE account_id = ? AND target_account_id = ?`,
      [accountId, targetId],
    );
    return rows[0];
  }

  /** Mutes (or changes the mute's notifications and expiry). */
  async upsertMute(row: {
    accountId: string;
    targetId: string;
    hideNotifications: boolean;
    expiresAt: string | null;
    createdAt: string;
  }): Promise<void> {
    await this.ctx.db.raw(
      `INSERT INTO mutes (account_id, target_account_id, hide_notifications, expires_at, created_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (account_id, target_account_id) DO UPDATE SET hide_notifications = excluded.hide_notifications, expires_at = excluded.expires_at`,
      [row.accountId, row.targetId, row.hideNotifications ? 1 : 0, row.expiresAt, row.createdAt],
    );
  }

  async deleteMute(accountId: string, targetId: string): Promise<void> {
    await this.ctx.db.raw(`DELETE FROM mutes WHERE account_id = ? AND target_account_id = ?`, [accountId, targetId]);
  }

  /** Whether the edge exists as `trx` sees it (inside a write, where the reader would not). */
  async existsIn(trx: Knex, table: EdgeTable, accountId: string, targetId: string): Promise<boolean> {
    const rows = await rawRows(trx, `SELECT 1 AS x FROM ${table} WHERE account_id = ? AND target_account_id = ?`, [
      accountId,
      targetId,
    ]);
    return rows.length > 0;
  }

  async deleteEdge(trx: Knex, table: EdgeTable, accountId: string, targetId: string): Promise<boolean> {
    const result = await rawRows(
      trx,
      `DELETE FROM ${table} WHERE account_id = ? AND target_account_id = ? RETURNING id`,
      [accountId, targetId],
    );
    return result.length > 0;
  }

  /** A page of edges: `direction` 'out' lists targets of accountId, 'in' lists accounts pointing at it. */
  listEdges(
    table: EdgeTable,
    direction: 'out' | 'in',
    accountId: string,
    page: { maxId?: string; sinceId?: string; minId?: string; limit: number },
  ): Promise<ListedEdge[]> {
    const [own, other] =
      direction === 'out' ? ['account_id', 'target_account_id'] : ['target_account_id', 'account_id'];
    const ascending = page.minId !== undefined;
    const expired = table === 'mutes' ? ' AND (expires_at IS NULL OR expires_at > ?5)' : '';
    return this.ctx.reader.all<ListedEdge>(
      `SELECT * FROM (SELECT CAST(id AS TEXT) AS edge_id, CAST(${other} AS TEXT) AS account_id, id AS n${
        table === 'mutes' ? ', expires_at AS mute_expires_at' : ''
      } FROM ${table}
        WHERE ${own} = ?1 AND id < coalesce(?2, 9223372036854775807) AND id > coalesce(?3, CAST(0 AS BIGINT))${expired}
        ORDER BY id ${ascending ? 'ASC' : 'DESC'} LIMIT ?4) AS p ORDER BY n DESC`,
      [
        accountId,
        page.maxId ?? null,
        (ascending ? page.minId : page.sinceId) ?? null,
        page.limit,
        ...(expired ? [new Date(this.ctx.now()).toISOString()] : []),
      ],
    );
  }

  pendingRequesters(trx: Knex, targetId: string): Promise<Array<{ account_id: string }>> {
    return rawRows(
      trx,
      `SELECT CAST(account_id AS TEXT) AS account_id FROM follow_requests WHERE target_account_id = ? ORDER BY id`,
      [targetId],
    );
  }

  async setNote(accountId: string, targetId: string, comment: string): Promise<void> {
    if (comment === '')
      await this.ctx.db.raw('DELETE FROM account_notes WHERE account_id = ? AND target_account_id = ?', [
        accountId,
        targetId,
      ]);
    else
      await this.ctx.db.raw(
        `INSERT INTO account_notes (account_id, target_account_id, comment) VALUES (?, ?, ?)
      ON CONFLICT (account_id, target_account_id) DO UPDATE SET comment = excluded.comment`,
        [accountId, targetId, comment],
      );
  }

  domainBlocks(
    accountId: string,
    page: { maxId?: string; sinceId?: string; minId?: string; limit: number },
  ): Promise<Array<{ id: string; domain: string }>> {
    const { sql, params } = cursorPageSql(
      {
        select: 'CAST(id AS TEXT) AS id, domain',
        from: 'account_domain_blocks',
        where: 'account_id = ?1',
        cursor: 'id',
      },
      [accountId],
      page,
    );
    return this.ctx.reader.all(sql, params);
  }

  async addDomainBlock(accountId: string, domain: string): Promise<void> {
    await this.ctx.db.raw(
      `INSERT INTO account_domain_blocks (account_id, domain, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
      [accountId, domain, new Date(this.ctx.now()).toISOString()],
    );
  }

  async removeDomainBlock(accountId: string, domain: string): Promise<void> {
    await this.ctx.db.raw(`DELETE FROM account_domain_blocks WHERE account_id = ? AND domain = ?`, [accountId, domain]);
  }

  async domainBlocked(accountId: string, domain: string | null): Promise<boolean> {
    if (!domain) return false;
    return Boolean(
      await this.ctx.reader.get(`SELECT 1 AS x FROM account_domain_blocks WHERE account_id = ? AND domain = lower(?)`, [
        accountId,
        domain,
      ]),
    );
  }

  /** Accounts among `ids` that the viewer blocks, mutes, or is blocked by. */
  /**
   * For each of `ids`, the accounts the viewer follows that follow it (Mastodon's familiar
   * followers; suspended ones left out), oldest follow first.
   */
  familiarFollowers(
    viewerId: string,
    ids: readonly string[],
  ): Promise<Array<{ target_id: string; account_id: string }>> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.ctx.reader.all(
      `SELECT CAST(j.value AS TEXT) AS target_id, CAST(f.account_id AS TEXT) AS account_id FROM ${dialectOf(this.ctx.db).idsTableOf('?2', 'j')}
      JOIN follows f ON f.target_account_id = CAST(j.value AS BIGINT)
      WHERE f.account_id != ?1 AND EXISTS (SELECT 1 FROM follows mine WHERE mine.account_id = ?1 AND mine.target_account_id = f.account_id)
        AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = f.account_id AND a.suspended_at IS NOT NULL)
      ORDER BY f.id`,
      [viewerId, JSON.stringify(ids)],
    );
  }

  async hiddenFrom(viewerId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.ctx.reader.all<{ id: string }>(
      `
      SELECT CAST(j.value AS TEXT) AS id FROM ${dialectOf(this.ctx.db).idsTableOf('?2', 'j')} WHERE
        EXISTS (SELECT 1 FROM blocks WHERE account_id = ?1 AND target_account_id = CAST(j.value AS BIGINT))
        OR EXISTS (SELECT 1 FROM blocks WHERE target_account_id = ?1 AND account_id = CAST(j.value AS BIGINT))
        OR EXISTS (SELECT 1 FROM mutes WHERE account_id = ?1 AND target_account_id = CAST(j.value AS BIGINT) AND (expires_at IS NULL OR expires_at > ?3))`,
      [viewerId, JSON.stringify(ids), new Date(this.ctx.now()).toISOString()],
    );
    return new Set(rows.map((row) => row.id));
  }

  async deleteExpiredMutes(): Promise<number> {
    const rows = await rawRows(
      this.ctx.db,
      `DELETE FROM mutes WHERE expires_at IS NOT NULL AND expires_at <= ? RETURNING account_id`,
      [new Date(this.ctx.now()).toISOString()],
    );
    return rows.length;
  }
}
