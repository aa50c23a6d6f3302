/** SQL of local accounts' migration: the aliases they claim and where they moved. */
import type { SocialContext } from '../../context.js';

export class LocalMovesRepo {
  constructor(private readonly ctx: SocialContext) {}

  async addAlias(accountId: string, uri: string): Promise<void> {
    await this.ctx.db.raw(
      'INSERT INTO federation_local_aliases (account_id, uri) VALUES (?, ?) ON CONFLICT DO NOTHING',
      [accountId, uri],
    );
  }

  async aliases(accountId: string): Promise<string[]> {
    const rows = await this.ctx.reader.all<{ uri: string }>(
      'SELECT uri FROM federation_local_aliases WHERE account_id = ? ORDER BY uri',
      [accountId],
    );
    return rows.map((row) => row.uri);
  }

  /** Where a local account moved, if it did. */
  async movedTo(accountId: string): Promise<string | null> {
    const row = await this.ctx.reader.get<{ target_uri: string }>(
      'SELECT target_uri FROM federation_local_moves WHERE account_id = ?',
      [accountId],
    );
    return row?.target_uri ?? null;
  }

  /** A local account moved to `target`: kept for its actor document and as its account's `moved`. */
  async recordMove(accountId: string, target: { id: string; uri: string }, at: string): Promise<void> {
    await this.ctx.db.transaction(async (trx) => {
      await trx.raw(
        `INSERT INTO federation_local_moves (account_id, target_uri, created_at) VALUES (?, ?, ?)
        ON CONFLICT (account_id) DO UPDATE SET target_uri = excluded.target_uri, created_at = excluded.created_at`,
        [accountId, target.uri, at],
      );
      await trx.raw(
        `INSERT INTO federation_actors (account_id, moved_to_account_id, fetched_at) VALUES (?, ?, ?)
        ON CONFLICT (account_id) DO UPDATE SET moved_to_account_id = excluded.moved_to_account_id`,
        [accountId, target.id, at],
      );
    });
  }
}
