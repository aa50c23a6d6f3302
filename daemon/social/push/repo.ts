/** SQL for Web Push: the subscriptions (one per access token) and what delivery reads of sender and follows. */
import type { SocialContext } from '../context.js';

export interface PushRow {
  id: number;
  token_id: string;
  account_id: string;
  endpoint: string;
  key_p256dh: string;
  key_auth: string;
  alerts: string;
  policy: string;
  standard: number;
}

/** A subscription as stored; `alerts` as JSON. */
export interface PushInsert {
  tokenId: string;
  accountId: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  alerts: Record<string, boolean>;
  policy: string;
  standard: boolean;
  createdAt: string;
}

const COLUMNS = `id, CAST(token_id AS TEXT) AS token_id, CAST(account_id AS TEXT) AS account_id, endpoint, key_p256dh, key_auth, alerts, policy, standard`;

export class PushRepo {
  constructor(private readonly ctx: SocialContext) {}

  byToken(tokenId: string): Promise<PushRow | undefined> {
    return this.ctx.reader.get<PushRow>(`SELECT ${COLUMNS} FROM push_subscriptions WHERE token_id = ?`, [tokenId]);
  }

  ofAccount(accountId: string): Promise<PushRow[]> {
    return this.ctx.reader.all<PushRow>(`SELECT ${COLUMNS} FROM push_subscriptions WHERE account_id = ?`, [accountId]);
  }

  /** Stores the token's subscription in place of the one it had, in one transaction. */
  async replace(sub: PushInsert): Promise<void> {
    await this.ctx.db.transaction(async (trx) => {
      await trx.raw(`DELETE FROM push_subscriptions WHERE token_id = ?`, [sub.tokenId]);
      await trx.raw(
        `INSERT INTO push_subscriptions (token_id, account_id, endpoint, key_p256dh, key_auth, alerts, policy, standard, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          sub.tokenId,
          sub.accountId,
          sub.endpoint,
          sub.p256dh,
          sub.auth,
          JSON.stringify(sub.alerts),
          sub.policy,
          sub.standard ? 1 : 0,
          sub.createdAt,
        ],
      );
    });
  }

  async setAlertsAndPolicy(id: number, alerts: Record<string, boolean>, policy: string): Promise<void> {
    await this.ctx.db.raw(`UPDATE push_subscriptions SET alerts = ?, policy = ? WHERE id = ?`, [
      JSON.stringify(alerts),
      policy,
      id,
    ]);
  }

  async removeByToken(tokenId: string): Promise<void> {
    await this.ctx.db.raw(`DELETE FROM push_subscriptions WHERE token_id = ?`, [tokenId]);
  }

  async remove(id: number): Promise<void> {
    await this.ctx.db.raw(`DELETE FROM push_subscriptions WHERE id = ?`, [id]);
  }

  /** What a notification's title and icon show of the account it is from. */
  sender(accountId: string): Promise<{ username: string; display_name: string; avatar: string | null } | undefined> {
    return this.ctx.reader.get(`SELECT username, display_name, avatar FROM accounts WHERE id = ?`, [accountId]);
  }

  async follows(accountId: string, targetAccountId: string): Promise<boolean> {
    return Boolean(
      await this.ctx.reader.get(`SELECT 1 AS x FROM follows WHERE account_id = ? AND target_account_id = ?`, [
        accountId,
        targetAccountId,
      ]),
    );
  }
}
