/** SQL for the federation side of accounts: inboxes, keys, remote actor extras. Ids as text. */
import type { Knex } from 'knex';
import { dialectOf, idList, rawRows } from '../../../store/dialect.js';
import type { SocialContext } from '../../context.js';

export interface ActorRow {
  id: string;
  username: string;
  domain: string | null;
  uri: string;
  url: string | null;
  inbox_url: string | null;
  shared_inbox_url: string | null;
  followers_url: string | null;
  public_key: string | null;
  suspended_at: string | null;
  locked: number;
  key_id: string | null;
  moved_to_account_id: string | null;
  also_known_as: string | null;
}

export interface RemoteImages {
  avatar: string | null;
  avatar_static: string | null;
  header: string | null;
  header_static: string | null;
  avatar_source: string | null;
  header_source: string | null;
}

const COLUMNS = `CAST(a.id AS TEXT) AS id, a.username, a.domain, a.uri, a.url, a.inbox_url, a.shared_inbox_url, a.followers_url,
  a.public_key, a.suspended_at, a.locked, f.key_id, CAST(f.moved_to_account_id AS TEXT) AS moved_to_account_id, f.also_known_as`;
const FROM = `FROM accounts a LEFT JOIN federation_actors f ON f.account_id = a.id`;

export class ActorsRepo {
  constructor(private readonly ctx: SocialContext) {}

  byId(id: string): Promise<ActorRow | undefined> {
    return this.ctx.reader.get<ActorRow>(`SELECT ${COLUMNS} ${FROM} WHERE a.id = ?`, [id]);
  }

  /** The actors of `ids` that exist, in the order of `ids`: one query. */
  async byIds(ids: readonly string[]): Promise<ActorRow[]> {
    if (ids.length === 0) return [];
    const rows = await this.ctx.reader.all<ActorRow>(
      `SELECT ${COLUMNS} ${FROM} WHERE a.id IN ${dialectOf(this.ctx.db).idSet()}`,
      [idList(ids)],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  byUri(uri: string): Promise<ActorRow | undefined> {
    return this.ctx.reader.get<ActorRow>(`SELECT ${COLUMNS} ${FROM} WHERE a.uri = ?`, [uri]);
  }

  byKeyId(keyId: string): Promise<ActorRow | undefined> {
    return this.ctx.reader.get<ActorRow>(`SELECT ${COLUMNS} ${FROM} WHERE f.key_id = ?`, [keyId]);
  }

  byAcct(username: string, domain: string): Promise<ActorRow | undefined> {
    return this.ctx.reader.get<ActorRow>(
      `SELECT ${COLUMNS} ${FROM} WHERE lower(a.username) = lower(?) AND lower(a.domain) = lower(?)`,
      [username, domain],
    );
  }

  /** The id of the account whose actor id or profile address is `address` (search resolve). */
  async idAt(address: string): Promise<string | undefined> {
    const row = await this.ctx.reader.get<{ id: string }>(
      `SELECT CAST(id AS TEXT) AS id FROM accounts WHERE uri = ?1 OR url = ?1`,
      [address],
    );
    return row?.id;
  }

  /** Inboxes of an account's remote followers, shared inboxes preferred, one per server inbox. */
  async followerInboxes(accountId: string): Promise<string[]> {
    const rows = await this.ctx.reader.all<{ inbox: string }>(
      `SELECT DISTINCT coalesce(a.shared_inbox_url, a.inbox_url) AS inbox
      FROM follows f JOIN accounts a ON a.id = f.account_id
      WHERE f.target_account_id = ? AND a.domain IS NOT NULL AND a.suspended_at IS NULL AND coalesce(a.shared_inbox_url, a.inbox_url) IS NOT NULL`,
      [accountId],
    );
    return rows.map((row) => row.inbox);
  }

  /**
   * Who hears of a status elsewhere: the inboxes of the peers' accounts it mentions and, unless
   * `followers` is false (a direct status), of its author's remote followers; shared inboxes
   * preferred, once each. One query, so a status nobody elsewhere reads is known as such at once.
   */
  async audienceInboxes(authorId: string, statusId: string, followers: boolean): Promise<string[]> {
    const inbox = 'coalesce(a.shared_inbox_url, a.inbox_url)';
    const following = `a.suspended_at IS NULL AND a.id IN (SELECT f.account_id FROM follows f WHERE f.target_account_id = ?)`;
    const mentioned = `a.id IN (SELECT m.account_id FROM mentions m WHERE m.status_id = ?)`;
    const rows = await this.ctx.reader.all<{ inbox: string }>(
      `SELECT DISTINCT ${inbox} AS inbox FROM accounts a WHERE a.domain IS NOT NULL AND ${inbox} IS NOT NULL
      AND (${followers ? `(${following}) OR ` : ''}${mentioned})`,
      followers ? [authorId, statusId] : [statusId],
    );
    return rows.map((row) => row.inbox);
  }

  /** Local accounts following a (remote) account. */
  localFollowersOf(accountId: string): Promise<Array<{ id: string }>> {
    return this.ctx.reader.all(
      `SELECT CAST(f.account_id AS TEXT) AS id FROM follows f JOIN accounts a ON a.id = f.account_id
      WHERE f.target_account_id = ? AND a.domain IS NULL`,
      [accountId],
    );
  }

  /** A peer's account's pictures as the row has them (the peer's URLs or local copies) and their sources. */
  images(id: string): Promise<RemoteImages | undefined> {
    return this.ctx.reader.get<RemoteImages>(
      `SELECT a.avatar, a.avatar_static, a.header, a.header_static, f.avatar_source, f.header_source
      FROM accounts a JOIN federation_actors f ON f.account_id = a.id WHERE a.id = ? AND a.domain IS NOT NULL`,
      [id],
    );
  }

  /** Points a peer's account at the local copy of its picture, if that picture is still `source`. */
  async useCopy(
    id: string,
    kind: 'avatar' | 'header',
    source: string,
    copy: { original: string; static: string },
  ): Promise<boolean> {
    const rows = await rawRows(
      this.ctx.db,
      `UPDATE accounts SET ${kind} = ?, ${kind}_static = ? WHERE id = ? AND ${kind} = ?
      AND EXISTS (SELECT 1 FROM federation_actors f WHERE f.account_id = accounts.id AND f.${kind}_source = ?) RETURNING id`,
      [copy.original, copy.static, id, source, source],
    );
    return rows.length > 0;
  }

  async insert(trx: Knex, account: Record<string, unknown>, extra: Record<string, unknown>): Promise<void> {
    await trx('accounts').insert(account);
    await trx('federation_actors').insert(extra);
  }

  async update(trx: Knex, id: string, account: Record<string, unknown>, extra: Record<string, unknown>): Promise<void> {
    await trx('accounts').whereRaw('id = ?', [id]).update(account);
    await trx.raw(
      `INSERT INTO federation_actors (account_id, fetched_at) VALUES (?, ?) ON CONFLICT (account_id) DO NOTHING`,
      [id, extra.fetched_at as string],
    );
    await trx('federation_actors').whereRaw('account_id = ?', [id]).update(extra);
  }

  async setPublicKey(id: string, keyId: string, pem: string): Promise<void> {
    await this.ctx.db.transaction(async (trx) => {
      await trx.raw('UPDATE accounts SET public_key = ? WHERE id = ?', [pem, id]);
      await trx.raw('UPDATE federation_actors SET key_id = ? WHERE account_id = ?', [keyId, id]);
    });
  }

  /** The id a peer gave its follow (or follow request) of a local account, for its Accept or Reject. */
  async setFollowUri(followerId: string, targetId: string, uri: string | null): Promise<void> {
    await this.ctx.db.transaction(async (trx) => {
      for (const table of ['follows', 'follow_requests'])
        await trx.raw(`UPDATE ${table} SET uri = ? WHERE account_id = ? AND target_account_id = ?`, [
          uri,
          followerId,
          targetId,
        ]);
    });
  }

  async followUri(followerId: string, targetId: string): Promise<string | null> {
    const row = await this.ctx.reader.get<{ uri: string | null }>(
      'SELECT uri FROM follows WHERE account_id = ? AND target_account_id = ?',
      [followerId, targetId],
    );
    return row?.uri ?? null;
  }

  async setMoved(id: string, targetId: string): Promise<void> {
    await this.ctx.db.raw('UPDATE federation_actors SET moved_to_account_id = ? WHERE account_id = ?', [targetId, id]);
  }

  async suspend(id: string, at: string): Promise<void> {
    await this.ctx.db.raw('UPDATE accounts SET suspended_at = ? WHERE id = ? AND domain IS NOT NULL', [at, id]);
  }
}
