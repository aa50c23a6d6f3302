/** SQL for lists and their members. Every query is scoped to the list's owner. */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectOf, rawRows } from '../../store/dialect.js';
import { cursorPageSql, type PageQuery } from '../store/paging.js';

export interface ListRow {
  id: string;
  title: string;
  replies_policy: string;
  exclusive: number;
}

const COLUMNS = 'CAST(id AS TEXT) AS id, title, replies_policy, exclusive';

export class ListsRepo {
  constructor(private readonly ctx: SocialContext) {}

  ofOwner(ownerId: string): Promise<ListRow[]> {
    return this.ctx.reader.all<ListRow>(`SELECT ${COLUMNS} FROM lists WHERE account_id = ? ORDER BY lists.id`, [
      ownerId,
    ]);
  }

  one(ownerId: string, id: string): Promise<ListRow | undefined> {
    return this.ctx.reader.get<ListRow>(`SELECT ${COLUMNS} FROM lists WHERE account_id = ? AND id = ?`, [ownerId, id]);
  }

  /** The owner's lists that hold `accountId`. */
  holding(ownerId: string, accountId: string): Promise<ListRow[]> {
    return this.ctx.reader.all<ListRow>(
      `SELECT ${COLUMNS} FROM lists l WHERE l.account_id = ?
      AND EXISTS (SELECT 1 FROM list_accounts la WHERE la.list_id = l.id AND la.account_id = ?) ORDER BY l.id`,
      [ownerId, accountId],
    );
  }

  async count(ownerId: string): Promise<number> {
    return (
      (await this.ctx.reader.get<{ n: number }>(`SELECT count(*) AS n FROM lists WHERE account_id = ?`, [ownerId]))
        ?.n ?? 0
    );
  }

  async insert(ownerId: string, row: Omit<ListRow, 'id'>, createdAt: string): Promise<string> {
    const rows = await rawRows<{ id: string }>(
      this.ctx.db,
      `INSERT INTO lists (account_id, title, replies_policy, exclusive, created_at) VALUES (?, ?, ?, ?, ?)
      RETURNING CAST(id AS TEXT) AS id`,
      [ownerId, row.title, row.replies_policy, row.exclusive, createdAt],
    );
    return rows[0].id;
  }

  async update(ownerId: string, id: string, row: Omit<ListRow, 'id'>): Promise<void> {
    await this.ctx.db.raw(
      `UPDATE lists SET title = ?, replies_policy = ?, exclusive = ? WHERE account_id = ? AND id = ?`,
      [row.title, row.replies_policy, row.exclusive, ownerId, id],
    );
  }

  async remove(ownerId: string, id: string): Promise<boolean> {
    const rows = await rawRows(this.ctx.db, `DELETE FROM lists WHERE account_id = ? AND id = ? RETURNING id`, [
      ownerId,
      id,
    ]);
    return rows.length > 0;
  }

  /** Members, paged by when they were added (limit 0: all of them). */
  members(listId: string, page: PageQuery): Promise<Array<{ edge_id: string; account_id: string }>> {
    const { sql, params } = cursorPageSql(
      {
        select: 'CAST(id AS TEXT) AS edge_id, CAST(account_id AS TEXT) AS account_id',
        from: 'list_accounts',
        where: 'list_id = ?1',
        cursor: 'id',
      },
      [listId],
      { ...page, limit: page.limit === 0 ? -1 : page.limit },
    );
    return this.ctx.reader.all(sql, params);
  }

  async allExist(accountIds: readonly string[]): Promise<boolean> {
    const row = await this.ctx.reader.get<{ n: number }>(
      `SELECT count(*) AS n FROM accounts WHERE id IN ${dialectOf(this.ctx.db).idSet()}`,
      [JSON.stringify(accountIds)],
    );
    return row?.n === accountIds.length;
  }

  /**
   * Of `accountIds`, those the owner may not put on a list: not the owner, not followed, not asked
   * to follow (Mastodon's ListAccount needs one of those).
   */
  unrelated(ownerId: string, accountIds: readonly string[]): Promise<Array<{ id: string }>> {
    return this.ctx.reader.all(
      `SELECT j.value AS id FROM ${dialectOf(this.ctx.db).idsTableOf('?2', 'j')}
      WHERE CAST(j.value AS BIGINT) != ?1
        AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = ?1 AND f.target_account_id = CAST(j.value AS BIGINT))
        AND NOT EXISTS (SELECT 1 FROM follow_requests r WHERE r.account_id = ?1 AND r.target_account_id = CAST(j.value AS BIGINT))`,
      [ownerId, JSON.stringify(accountIds)],
    );
  }

  /** Adds every account or none: false when one is already on the list. */
  async addMembers(listId: string, accountIds: readonly string[], createdAt: string): Promise<boolean> {
    return this.ctx.db
      .transaction(async (trx: Knex) => {
        for (const accountId of accountIds) {
          const added = await rawRows(
            trx,
            `INSERT INTO list_accounts (list_id, account_id, created_at) VALUES (?, ?, ?)
          ON CONFLICT (list_id, account_id) DO NOTHING RETURNING id`,
            [listId, accountId, createdAt],
          );
          if (added.length === 0) throw new AlreadyListed();
        }
        return true;
      })
      .catch((error: unknown) => {
        if (error instanceof AlreadyListed) return false;
        throw error;
      });
  }

  /** Takes `accountId` off every list `ownerId` has, inside the caller's transaction. */
  async removeFromOwnersLists(trx: Knex, ownerId: string, accountId: string): Promise<void> {
    await trx.raw(
      `DELETE FROM list_accounts WHERE account_id = ? AND list_id IN (SELECT id FROM lists WHERE account_id = ?)`,
      [accountId, ownerId],
    );
  }

  async removeMembers(listId: string, accountIds: readonly string[]): Promise<void> {
    await this.ctx.db.raw(
      `DELETE FROM list_accounts WHERE list_id = ? AND account_id IN ${dialectOf(this.ctx.db).idSet()}`,
      [listId, JSON.stringify(accountIds)],
    );
  }
}

class AlreadyListed extends Error {}
