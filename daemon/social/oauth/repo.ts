/** SQL for applications, authorization codes and tokens. */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectOf, rawRows } from '../../store/dialect.js';

export interface AppRow {
  id: string;
  name: string;
  website: string | null;
  redirect_uri: string;
  scopes: string;
  client_id: string;
  client_secret: string;
}

export interface TokenRow {
  id: string;
  account_id: string | null;
  app_id: string | null;
  scopes: string;
  role: string | null;
  approved: number | null;
  disabled: number | null;
  suspended_at: string | null;
  /** The user's e-mail confirmation and sign-up app (confirmation is demanded only with SMTP). */
  confirmed_at: string | null;
  created_by_app_id: string | null;
}

/** An authorization code as its exchange reads it. */
export interface CodeRow {
  app_id: string;
  account_id: string;
  redirect_uri: string;
  scopes: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  expires_at: string;
}

const APP_COLUMNS = 'CAST(id AS TEXT) AS id, name, website, redirect_uri, scopes, client_id, client_secret';

export class OAuthRepo {
  constructor(private readonly ctx: SocialContext) {}

  async insertApp(
    app: Omit<AppRow, 'id'> & { owner_account_id?: string | null },
    trx: Knex = this.ctx.db,
  ): Promise<string> {
    const [row] = await trx('oauth_apps')
      .insert({ ...app, created_at: new Date(this.ctx.now()).toISOString() })
      .returning<Array<{ id: number }>>('id');
    return String(row.id);
  }

  appById(id: string): Promise<AppRow | undefined> {
    return this.ctx.reader.get<AppRow>(`SELECT ${APP_COLUMNS} FROM oauth_apps WHERE id = ?`, [id]);
  }

  appByClientId(clientId: string): Promise<AppRow | undefined> {
    return this.ctx.reader.get<AppRow>(`SELECT ${APP_COLUMNS} FROM oauth_apps WHERE client_id = ?`, [clientId]);
  }

  async insertToken(
    row: { token_hash: string; app_id: string | null; account_id: string | null; scopes: string },
    trx: Knex = this.ctx.db,
  ): Promise<{ id: string; created_at: string }> {
    const created_at = new Date(this.ctx.now()).toISOString();
    const [token] = await rawRows<{ id: number }>(
      trx,
      `INSERT INTO oauth_tokens (token_hash, app_id, account_id, scopes, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id`,
      [row.token_hash, row.app_id, row.account_id, row.scopes, created_at],
    );
    return { id: String(token.id), created_at };
  }

  tokenByHash(hash: string): Promise<TokenRow | undefined> {
    return this.ctx.reader.get<TokenRow>(
      `SELECT CAST(t.id AS TEXT) AS id, CAST(t.account_id AS TEXT) AS account_id, CAST(t.app_id AS TEXT) AS app_id, t.scopes,
              u.role, u.approved, u.disabled, a.suspended_at, u.confirmed_at, CAST(u.created_by_app_id AS TEXT) AS created_by_app_id
         FROM oauth_tokens t
         LEFT JOIN users u ON u.account_id = t.account_id
         LEFT JOIN accounts a ON a.id = t.account_id
        WHERE t.token_hash = ? AND t.revoked_at IS NULL`,
      [hash],
    );
  }

  async tokenAppByHash(hash: string): Promise<{ id: string; app_id: string | null } | undefined> {
    return this.ctx.reader.get(
      `SELECT CAST(id AS TEXT) AS id, CAST(app_id AS TEXT) AS app_id FROM oauth_tokens WHERE token_hash = ? AND revoked_at IS NULL`,
      [hash],
    );
  }

  async revokeToken(id: string): Promise<void> {
    await this.ctx
      .db('oauth_tokens')
      .where({ id })
      .update({ revoked_at: new Date(this.ctx.now()).toISOString() });
  }

  async revokeAccountTokens(accountId: string): Promise<void> {
    await this.ctx.db.raw(`UPDATE oauth_tokens SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL`, [
      new Date(this.ctx.now()).toISOString(),
      accountId,
    ]);
  }

  async insertCode(row: {
    code_hash: string;
    app_id: string;
    account_id: string;
    redirect_uri: string;
    scopes: string;
    code_challenge: string | null;
    code_challenge_method: string | null;
    expires_at: string;
  }): Promise<void> {
    await this.ctx.db('oauth_codes').insert({ ...row, created_at: new Date(this.ctx.now()).toISOString() });
  }

  /**
   * Mastodon's daily vacuum: revoked tokens, used or expired authorization codes, and then the
   * apps nobody holds anything of (no token, code, owner, account signed up through them or post
   * scheduled through them) once a day old. Each dashboard login or client sign-in that ends in a log-out leaves such an app.
   */
  async vacuum(now: Date, appAgeMs: number): Promise<{ tokens: number; codes: number; apps: number }> {
    return this.ctx.db.transaction(async (trx) => {
      const nowIso = now.toISOString();
      const tokens = await trx('oauth_tokens').whereNotNull('revoked_at').andWhere('revoked_at', '<=', nowIso).delete();
      const codes = await trx('oauth_codes').whereNotNull('used_at').orWhere('expires_at', '<', nowIso).delete();
      const apps = await rawRows(
        trx,
        `DELETE FROM oauth_apps AS a
        WHERE a.owner_account_id IS NULL AND a.created_at < ?
          AND NOT EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.app_id = a.id)
          AND NOT EXISTS (SELECT 1 FROM oauth_codes c WHERE c.app_id = a.id)
          AND NOT EXISTS (SELECT 1 FROM users u WHERE u.created_by_app_id = a.id)
          AND NOT EXISTS (SELECT 1 FROM scheduled_statuses ss WHERE ${dialectOf(trx).jsonText('ss.params', 'application_id')} = CAST(a.id AS TEXT))
        RETURNING id`,
        [new Date(now.getTime() - appAgeMs).toISOString()],
      );
      return { tokens, codes, apps: apps.length };
    });
  }

  /** Marks the code used and returns it, once: a second exchange finds nothing. */
  async consumeCode(codeHash: string): Promise<CodeRow | undefined> {
    return this.ctx.db.transaction(async (trx) => {
      const rows = await rawRows<CodeRow & { used_at: string | null }>(
        trx,
        `SELECT CAST(app_id AS TEXT) AS app_id, CAST(account_id AS TEXT) AS account_id, redirect_uri, scopes, code_challenge, code_challenge_method, expires_at, used_at
                                    FROM oauth_codes WHERE code_hash = ?`,
        [codeHash],
      );
      const row = rows[0];
      if (!row || row.used_at) return undefined;
      await trx('oauth_codes')
        .where({ code_hash: codeHash })
        .update({ used_at: new Date(this.ctx.now()).toISOString() });
      return row;
    });
  }
}
