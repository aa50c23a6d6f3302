/** SQL for scheduled statuses. Every read is scoped to the owning account, except the due list. */
import type { Knex } from 'knex';
import { rawRows } from '../../store/dialect.js';
import type { SocialContext } from '../context.js';
import { cursorPageSql, type PageQuery } from '../store/paging.js';

export interface ScheduledRow {
  id: string;
  account_id: string;
  scheduled_at: string;
  params: string;
}

const COLUMNS = 'CAST(id AS TEXT) AS id, CAST(account_id AS TEXT) AS account_id, scheduled_at, params';

export class ScheduledRepo {
  constructor(private readonly ctx: SocialContext) {}

  one(accountId: string, id: string): Promise<ScheduledRow | undefined> {
    return this.ctx.reader.get<ScheduledRow>(
      `SELECT ${COLUMNS} FROM scheduled_statuses WHERE account_id = ? AND id = ?`,
      [accountId, id],
    );
  }

  page(accountId: string, page: PageQuery): Promise<ScheduledRow[]> {
    const { sql, params } = cursorPageSql(
      { select: COLUMNS, from: 'scheduled_statuses', where: 'account_id = ?1', cursor: 'id' },
      [accountId],
      page,
    );
    return this.ctx.reader.all<ScheduledRow>(sql, params);
  }

  /** How many the account has in all, and how many fall on the UTC day of `dayIso`. */
  async counts(accountId: string, dayIso: string): Promise<{ total: number; day: number }> {
    const row = await this.ctx.reader.get<{ total: number; day: number }>(
      `SELECT count(*) AS total,
      coalesce(sum(CASE WHEN substr(scheduled_at, 1, 10) = substr(?2, 1, 10) THEN 1 ELSE 0 END), 0) AS day FROM scheduled_statuses WHERE account_id = ?1`,
      [accountId, dayIso],
    );
    return row ?? { total: 0, day: 0 };
  }

  async insert(trx: Knex, row: Omit<ScheduledRow, 'id'>, createdAt: string): Promise<string> {
    const rows = await rawRows<{ id: string }>(
      trx,
      `INSERT INTO scheduled_statuses (account_id, scheduled_at, params, created_at) VALUES (?, ?, ?, ?)
      RETURNING CAST(id AS TEXT) AS id`,
      [row.account_id, row.scheduled_at, row.params, createdAt],
    );
    return rows[0].id;
  }

  async reschedule(accountId: string, id: string, scheduledAt: string): Promise<void> {
    await this.ctx.db.raw(`UPDATE scheduled_statuses SET scheduled_at = ? WHERE account_id = ? AND id = ?`, [
      scheduledAt,
      accountId,
      id,
    ]);
  }

  /** Deletes it (its media are let go); false when it was not there (already posted or deleted). */
  async remove(accountId: string, id: string): Promise<boolean> {
    const rows = await rawRows(
      this.ctx.db,
      `DELETE FROM scheduled_statuses WHERE account_id = ? AND id = ? RETURNING id`,
      [accountId, id],
    );
    return rows.length > 0;
  }

  /** Those whose time has come, with whether their account may still post (not suspended or disabled). */
  due(nowIso: string): Promise<Array<ScheduledRow & { may_post: number }>> {
    return this.ctx.reader.all(
      `SELECT CAST(s.id AS TEXT) AS id, CAST(s.account_id AS TEXT) AS account_id, s.scheduled_at, s.params,
        (a.suspended_at IS NULL AND NOT coalesce(u.disabled, FALSE)) AS may_post
      FROM scheduled_statuses s JOIN accounts a ON a.id = s.account_id LEFT JOIN users u ON u.account_id = s.account_id
      WHERE s.scheduled_at <= ? ORDER BY s.scheduled_at, s.id LIMIT 100`,
      [nowIso],
    );
  }
}
