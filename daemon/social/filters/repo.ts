/** SQL for filters (v2) and their keywords. Filter and keyword ids are plain integers, sent as strings. */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectOf, rawRows } from '../../store/dialect.js';

export interface FilterRow {
  id: string;
  account_id: string;
  title: string;
  context: string;
  action: string;
  expires_at: string | null;
}
export interface KeywordRow {
  id: string;
  filter_id: string;
  keyword: string;
  whole_word: number;
}

const FILTER = `CAST(id AS TEXT) AS id, CAST(account_id AS TEXT) AS account_id, title, context, action, expires_at`;
const KEYWORD = `CAST(id AS TEXT) AS id, CAST(filter_id AS TEXT) AS filter_id, keyword, whole_word`;

export class FiltersRepo {
  constructor(private readonly ctx: SocialContext) {}

  list(accountId: string): Promise<FilterRow[]> {
    return this.ctx.reader.all<FilterRow>(`SELECT ${FILTER} FROM filters WHERE account_id = ? ORDER BY filters.id`, [
      accountId,
    ]);
  }

  active(accountId: string, nowIso: string): Promise<FilterRow[]> {
    return this.ctx.reader.all<FilterRow>(
      `SELECT ${FILTER} FROM filters WHERE account_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY filters.id`,
      [accountId, nowIso],
    );
  }

  one(accountId: string, id: string): Promise<FilterRow | undefined> {
    return this.ctx.reader.get<FilterRow>(`SELECT ${FILTER} FROM filters WHERE account_id = ? AND id = ?`, [
      accountId,
      id,
    ]);
  }

  keywords(filterIds: readonly string[]): Promise<KeywordRow[]> {
    if (filterIds.length === 0) return Promise.resolve([]);
    return this.ctx.reader.all<KeywordRow>(
      `SELECT ${KEYWORD} FROM filter_keywords WHERE filter_id IN ${dialectOf(this.ctx.db).idSet()} ORDER BY filter_keywords.id`,
      [JSON.stringify(filterIds)],
    );
  }

  /** A keyword with the account owning its filter. */
  keyword(id: string): Promise<(KeywordRow & { account_id: string }) | undefined> {
    return this.ctx.reader.get(
      `SELECT CAST(k.id AS TEXT) AS id, CAST(k.filter_id AS TEXT) AS filter_id, k.keyword, k.whole_word,
      CAST(f.account_id AS TEXT) AS account_id FROM filter_keywords k JOIN filters f ON f.id = k.filter_id WHERE k.id = ?`,
      [id],
    );
  }

  async insertFilter(trx: Knex, row: Record<string, unknown>): Promise<string> {
    const rows = await rawRows<{ id: string }>(
      trx,
      `INSERT INTO filters (account_id, title, context, action, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING CAST(id AS TEXT) AS id`,
      [row.account_id, row.title, row.context, row.action, row.expires_at ?? null, row.created_at] as never,
    );
    return rows[0].id;
  }

  async updateFilter(trx: Knex, id: string, patch: Record<string, unknown>): Promise<void> {
    if (Object.keys(patch).length) await trx('filters').where({ id }).update(patch);
  }

  async deleteFilter(accountId: string, id: string): Promise<boolean> {
    return (await this.ctx.db('filters').where({ id, account_id: accountId }).delete()) > 0;
  }

  async insertKeyword(trx: Knex, filterId: string, keyword: string, wholeWord: boolean, now: string): Promise<string> {
    const rows = await rawRows<{ id: string }>(
      trx,
      `INSERT INTO filter_keywords (filter_id, keyword, whole_word, created_at) VALUES (?, ?, ?, ?) RETURNING CAST(id AS TEXT) AS id`,
      [filterId, keyword, wholeWord ? 1 : 0, now],
    );
    return rows[0].id;
  }

  async updateKeyword(
    trx: Knex,
    filterId: string,
    id: string,
    patch: { keyword?: string; whole_word?: number },
  ): Promise<boolean> {
    if (Object.keys(patch).length === 0)
      return Boolean(await trx('filter_keywords').where({ id, filter_id: filterId }).first('id'));
    return (await trx('filter_keywords').where({ id, filter_id: filterId }).update(patch)) > 0;
  }

  async deleteKeyword(trx: Knex, filterId: string, id: string): Promise<boolean> {
    return (await trx('filter_keywords').where({ id, filter_id: filterId }).delete()) > 0;
  }
}
