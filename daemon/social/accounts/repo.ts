/** SQL for accounts and the local users behind them, one text for both engines. Ids are read as text. */
import type { Knex } from 'knex';
import { dialectOf, rawRows, type BoundSql } from '../../store/dialect.js';
import type { SocialContext } from '../context.js';
import { ChangedRowsQuery } from '../render/changed-rows.js';

export interface AccountRow {
  id: string;
  username: string;
  domain: string | null;
  display_name: string;
  note: string;
  note_source: string;
  locked: number;
  bot: number;
  discoverable: number;
  fields: string;
  avatar: string | null;
  avatar_static: string | null;
  header: string | null;
  header_static: string | null;
  uri: string;
  url: string | null;
  silenced_at: string | null;
  suspended_at: string | null;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  last_status_at: string | null;
  created_at: string;
  /** The custom emoji its name and bio use (JSON of StoredEmoji). */
  emojis: string;
}

/** What posting needs of its author: the account's address and the user's defaults (null for none). */
export interface PosterRow {
  username: string;
  uri: string;
  default_privacy: string | null;
  default_language: string | null;
}

export interface UserRow {
  account_id: string;
  email: string;
  password_hash: string;
  role: string;
  approved: number;
  disabled: number;
  default_privacy: string;
  default_sensitive: number;
  default_language: string | null;
  created_by_app_id: string | null;
  created_at: string;
}

export const ACCOUNT_COLUMNS = `CAST(a.id AS TEXT) AS id, a.username, a.domain, a.display_name, a.note, a.note_source, a.locked, a.bot,
  a.discoverable, a.fields, a.avatar, a.avatar_static, a.header, a.header_static, a.uri, a.url, a.silenced_at, a.suspended_at,
  a.followers_count, a.following_count, a.statuses_count, a.last_status_at, a.created_at, a.emojis`;

/** The names of ACCOUNT_COLUMNS, for the Reader's JSON-building queries. */
export const ACCOUNT_FIELDS = [
  'id',
  'username',
  'domain',
  'display_name',
  'note',
  'note_source',
  'locked',
  'bot',
  'discoverable',
  'fields',
  'avatar',
  'avatar_static',
  'header',
  'header_static',
  'uri',
  'url',
  'silenced_at',
  'suspended_at',
  'followers_count',
  'following_count',
  'statuses_count',
  'last_status_at',
  'created_at',
  'emojis',
] as const;

const USER_COLUMNS = `CAST(account_id AS TEXT) AS account_id, email, password_hash, role, approved, disabled, default_privacy,
  default_sensitive, default_language, CAST(created_by_app_id AS TEXT) AS created_by_app_id, created_at`;

/** Accounts in parameter 1 (id → known version) with their versions. */
export const CHANGED_ACCOUNT_ROWS = new ChangedRowsQuery<AccountRow>(
  (dialect, param) => `SELECT ${ACCOUNT_COLUMNS}, a.version AS version, CAST(j.value AS INTEGER) AS known
  FROM ${dialect.entriesTableOf(param(1), 'j')} JOIN accounts a ON a.id = CAST(j.key AS BIGINT)`,
  ACCOUNT_FIELDS,
);

export class AccountsRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** A posting author's PosterRow, in one read. */
  poster(id: string): Promise<PosterRow | undefined> {
    return this.ctx.reader.get<PosterRow>(
      `SELECT a.username, a.uri, u.default_privacy, u.default_language
      FROM accounts a LEFT JOIN users u ON u.account_id = a.id WHERE a.id = ?`,
      [id],
    );
  }

  byId(id: string): Promise<AccountRow | undefined> {
    return this.ctx.reader.get<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE a.id = ?`, [id]);
  }

  /** The account this one moved to (a Move sent or received), if any. */
  async movedTo(id: string): Promise<AccountRow | undefined> {
    return this.ctx.reader.get<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM federation_actors f JOIN accounts a ON a.id = f.moved_to_account_id
      WHERE f.account_id = ?`,
      [id],
    );
  }

  /**
   * Accounts by id, each with its render version and, unless `known` (id → version) already has
   * that version, its row.
   */
  changedRows(known: Record<string, number>): Promise<Array<{ id: string; version: number; row: AccountRow | null }>> {
    if (Object.keys(known).length === 0) return Promise.resolve([]);
    return CHANGED_ACCOUNT_ROWS.run(this.ctx.reader, [JSON.stringify(known)]);
  }

  byUsername(username: string, domain: string | null): Promise<AccountRow | undefined> {
    return this.ctx.reader.get<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts a WHERE lower(a.username) = lower(?) AND coalesce(lower(a.domain), '') = coalesce(lower(?), '')`,
      [username, domain],
    );
  }

  /** The accounts at the given addresses (`domain` null for ours) that exist, in one query. */
  async byAddresses(addresses: ReadonlyArray<{ username: string; domain: string | null }>): Promise<AccountRow[]> {
    if (addresses.length === 0) return [];
    const key = (username: string, domain: string | null) => `${username.toLowerCase()}@${domain?.toLowerCase() ?? ''}`;
    const wanted = new Set(addresses.map(({ username, domain }) => key(username, domain)));
    const dialect = dialectOf(this.ctx.db);
    // Each list narrows through the (username, domain) index; the pairs are matched here.
    const rows = await this.ctx.reader.all<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts a
      WHERE lower(a.username) IN (SELECT lower(u.value) FROM ${dialect.idsTable('u')})
        AND coalesce(lower(a.domain), '') IN (SELECT lower(d.value) FROM ${dialect.idsTable('d')})`,
      [
        JSON.stringify(addresses.map((address) => address.username)),
        JSON.stringify(addresses.map((address) => address.domain ?? '')),
      ],
    );
    return rows.filter((row) => wanted.has(key(row.username, row.domain)));
  }

  search(query: string, limit: number, offset: number): Promise<AccountRow[]> {
    const like = `${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.ctx.reader.all<AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts a
        WHERE a.suspended_at IS NULL
          AND (lower(a.username) LIKE lower(?) ESCAPE '\\' OR lower(a.display_name) LIKE lower(?) ESCAPE '\\')
        ORDER BY (lower(a.username) = lower(?)) DESC, a.domain IS NOT NULL, a.followers_count DESC, a.id
        LIMIT ? OFFSET ?`,
      [like, like, query, limit, offset],
    );
  }

  userByAccountId(accountId: string): Promise<UserRow | undefined> {
    return this.ctx.reader.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE account_id = ?`, [accountId]);
  }

  /** Login by username or e-mail address. */
  userByLogin(login: string): Promise<UserRow | undefined> {
    return this.ctx.reader.get<UserRow>(
      `SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower(?)
        OR account_id = (SELECT id FROM accounts WHERE lower(username) = lower(?) AND domain IS NULL)`,
      [login, login],
    );
  }

  emailTaken(email: string): Promise<boolean> {
    return this.ctx.reader.get(`SELECT 1 AS x FROM users WHERE lower(email) = lower(?)`, [email]).then(Boolean);
  }

  async insertLocal(trx: Knex, account: Record<string, unknown>, user: Record<string, unknown>): Promise<void> {
    await trx('accounts').insert(account);
    await trx('users').insert(user);
  }

  async update(id: string, changes: Record<string, unknown>, trx: Knex = this.ctx.db): Promise<void> {
    await trx('accounts').whereRaw('id = ?', [id]).update(changes);
  }

  /** Replaces the fields only if they are still `expected` (a newer edit wins); true when replaced. */
  async replaceFieldsIfUnchanged(id: string, expected: string, next: string): Promise<boolean> {
    const changed = await this.ctx
      .db('accounts')
      .whereRaw('id = ? AND fields = ?', [id, expected])
      .update({ fields: next });
    return changed > 0;
  }

  async updateUser(accountId: string, changes: Record<string, unknown>, trx: Knex = this.ctx.db): Promise<void> {
    await trx('users').whereRaw('account_id = ?', [accountId]).update(changes);
  }

  async adjustCounter(
    trx: Knex,
    id: string,
    column: 'followers_count' | 'following_count' | 'statuses_count',
    delta: number,
  ): Promise<void> {
    const floor = dialectOf(trx).greatest('0', `${column} + ?`);
    await trx.raw(`UPDATE accounts SET ${column} = ${floor} WHERE id = ?`, [delta, id]);
  }

  /** One more status, posted at `at`: the count and the last status's time in one statement. */
  async statusPosted(trx: Knex, id: string, at: string): Promise<void> {
    const { sql, bindings } = this.statusPostedChange(id, at);
    await trx.raw(sql, bindings as Knex.RawBinding[]);
  }

  /** `statusPosted`'s statement, for a caller that sends it beside its own (`Dialect.withWrite`). */
  statusPostedChange(id: string, at: string): BoundSql {
    return {
      sql: `UPDATE accounts SET statuses_count = statuses_count + 1, last_status_at = ? WHERE id = ?`,
      bindings: [at, id],
    };
  }

  ownerAccountId(): Promise<string | undefined> {
    return this.ctx.reader
      .get<{ id: string }>(
        `SELECT CAST(account_id AS TEXT) AS id FROM users WHERE role = 'owner' ORDER BY created_at LIMIT 1`,
      )
      .then((row) => row?.id);
  }

  /** How many owner accounts `trx` sees (the first run re-checks it made the only one). */
  async ownerCountIn(trx: Knex): Promise<number> {
    const [{ n }] = await rawRows<{ n: number }>(trx, `SELECT count(*) AS n FROM users WHERE role = 'owner'`);
    return n;
  }

  inviteByCode(
    code: string,
  ): Promise<{ id: string; max_uses: number | null; uses: number; expires_at: string | null } | undefined> {
    return this.ctx.reader.get(
      `SELECT CAST(id AS TEXT) AS id, max_uses, uses, expires_at FROM invites WHERE code = ?`,
      [code],
    );
  }

  /** The account's RSA key pair for HTTP signatures, null halves while none was made. */
  keys(accountId: string): Promise<{ public_key: string | null; private_key: string | null } | undefined> {
    return this.ctx.reader.get('SELECT public_key, private_key FROM accounts WHERE id = ?', [accountId]);
  }

  /** Stores a key pair unless the account has one already (another caller made it first). */
  async setKeysIfNone(accountId: string, publicKey: string, privateKey: string): Promise<void> {
    await this.ctx.db.raw('UPDATE accounts SET public_key = ?, private_key = ? WHERE id = ? AND public_key IS NULL', [
      publicKey,
      privateKey,
      accountId,
    ]);
  }

  /** The paths of the account's avatar and header (original and static) its row names. */
  async profileImagePaths(accountId: string): Promise<Set<string | null>> {
    const row = await this.ctx.reader.get<Record<string, string | null>>(
      `SELECT avatar, avatar_static, header, header_static FROM accounts WHERE id = ?`,
      [accountId],
    );
    return new Set(Object.values(row ?? {}));
  }

  /** How many follow requests wait for the account's answer. */
  async followRequestCount(accountId: string): Promise<number> {
    const row = await this.ctx.reader.get<{ n: number }>(
      'SELECT count(*) AS n FROM follow_requests WHERE target_account_id = ?',
      [accountId],
    );
    return row?.n ?? 0;
  }
}
