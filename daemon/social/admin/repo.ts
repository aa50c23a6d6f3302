/** SQL for the admin account listing (v1 and v2 filters map onto one query) and moderation actions. */
import type { SocialContext } from '../context.js';
import { dialectOf, idList } from '../../store/dialect.js';
import type { PageQuery } from '../store/paging.js';

export interface AdminFilter {
  origin?: 'local' | 'remote';
  status?: 'active' | 'pending' | 'disabled' | 'silenced' | 'suspended';
  byDomain?: string;
  username?: string;
  displayName?: string;
  email?: string;
  staff?: boolean;
}

export interface AdminRow {
  id: string;
  username: string;
  domain: string | null;
  created_at: string;
  silenced_at: string | null;
  suspended_at: string | null;
  email: string | null;
  role: string | null;
  approved: number | null;
  disabled: number | null;
  confirmed_at: string | null;
  reason: string | null;
  locale: string | null;
  created_by_app_id: string | null;
  invite_id: number | null;
  sign_up_ip: string | null;
}

export class AdminRepo {
  constructor(private readonly ctx: SocialContext) {}

  list(filter: AdminFilter, page: PageQuery): Promise<AdminRow[]> {
    const where: string[] = [];
    const args: Array<string | number | null> = [page.maxId ?? null, page.minId ?? page.sinceId ?? null, page.limit];
    const arg = (value: string) => {
      args.push(value);
      return `?${args.length}`;
    };
    const like = (value: string) => arg(value.replace(/[\\%_]/g, (c) => `\\${c}`));
    if (filter.origin === 'local') where.push('a.domain IS NULL');
    if (filter.origin === 'remote') where.push('a.domain IS NOT NULL');
    if (filter.byDomain) where.push(`lower(a.domain) = lower(${arg(filter.byDomain)})`);
    if (filter.username) where.push(`lower(a.username) LIKE lower(${like(filter.username)}) || '%' ESCAPE '\\'`);
    if (filter.displayName)
      where.push(`lower(a.display_name) LIKE '%' || lower(${like(filter.displayName)}) || '%' ESCAPE '\\'`);
    if (filter.email) where.push(`lower(u.email) LIKE '%' || lower(${like(filter.email)}) || '%' ESCAPE '\\'`);
    if (filter.staff) where.push(`u.role IN ('owner', 'admin', 'moderator')`);
    switch (filter.status) {
      case 'active':
        where.push('a.suspended_at IS NULL AND (u.account_id IS NULL OR (u.approved AND NOT u.disabled))');
        break;
      case 'pending':
        where.push('NOT u.approved');
        break;
      case 'disabled':
        where.push('u.disabled');
        break;
      case 'silenced':
        where.push('a.silenced_at IS NOT NULL');
        break;
      case 'suspended':
        where.push('a.suspended_at IS NOT NULL');
        break;
    }
    const ascending = page.minId !== undefined;
    return this.ctx.reader.all<AdminRow>(
      `SELECT * FROM (SELECT CAST(a.id AS TEXT) AS id, a.id AS n, a.username, a.domain, a.created_at, a.silenced_at, a.suspended_at,
        u.email, u.role, u.approved, u.disabled, u.confirmed_at, u.reason, u.locale, CAST(u.created_by_app_id AS TEXT) AS created_by_app_id, u.invite_id, u.sign_up_ip
      FROM accounts a LEFT JOIN users u ON u.account_id = a.id
      WHERE a.id < coalesce(?1, 9223372036854775807) AND a.id > coalesce(?2, CAST(0 AS BIGINT)) ${where.map((w) => `AND ${w}`).join(' ')}
      ORDER BY a.id ${ascending ? 'ASC' : 'DESC'} LIMIT ?3) AS page ORDER BY n DESC`,
      args,
    );
  }

  async one(id: string): Promise<AdminRow | undefined> {
    return (await this.many([id]))[0];
  }

  /** The accounts `ids` that exist, in one query. */
  many(ids: readonly string[]): Promise<AdminRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.ctx.reader.all<AdminRow>(
      `SELECT CAST(a.id AS TEXT) AS id, a.username, a.domain, a.created_at, a.silenced_at, a.suspended_at,
        u.email, u.role, u.approved, u.disabled, u.confirmed_at, u.reason, u.locale, CAST(u.created_by_app_id AS TEXT) AS created_by_app_id, u.invite_id, u.sign_up_ip
      FROM accounts a LEFT JOIN users u ON u.account_id = a.id
      WHERE a.id IN (SELECT CAST(ids.value AS BIGINT) FROM ${dialectOf(this.ctx.db).idsTable('ids')})`,
      [idList(ids)],
    );
  }

  async approve(id: string): Promise<void> {
    await this.ctx.db.raw(`UPDATE users SET approved = TRUE WHERE account_id = ?`, [id]);
  }

  async remove(id: string): Promise<void> {
    await this.ctx.db.raw(`DELETE FROM accounts WHERE id = ?`, [id]);
  }

  /** Sets or clears (null) when the account was silenced. */
  async setSilencedAt(id: string, at: string | null): Promise<void> {
    await this.ctx.db.raw(`UPDATE accounts SET silenced_at = ? WHERE id = ?`, [at, id]);
  }

  /** Sets or clears (null) when the account was suspended. */
  async setSuspendedAt(id: string, at: string | null): Promise<void> {
    await this.ctx.db.raw(`UPDATE accounts SET suspended_at = ? WHERE id = ?`, [at, id]);
  }

  async setDisabled(id: string, disabled: boolean): Promise<void> {
    await this.ctx.db.raw(`UPDATE users SET disabled = ? WHERE account_id = ?`, [disabled ? 1 : 0, id]);
  }
}
