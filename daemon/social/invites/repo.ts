/** SQL for invites: making one, the owner's list, one by code, ending one, the accounts they let in. */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';

export interface InviteRow {
  id: string;
  code: string;
  max_uses: number | null;
  uses: number;
  expires_at: string | null;
  created_at: string;
}

export interface InvitedAccount {
  id: string;
  username: string;
  display_name: string;
  created_at: string;
  invite_code: string;
}

const COLUMNS = 'CAST(id AS TEXT) AS id, code, max_uses, uses, expires_at, created_at';

export class InvitesRepo {
  constructor(private readonly ctx: SocialContext) {}

  /**
   * Counts one use in the sign-up's transaction, only while the invite still allows one (unused
   * up, unexpired at `now`); false when it does not.
   */
  async use(trx: Knex, inviteId: string, now: string): Promise<boolean> {
    const counted = await trx('invites')
      .whereRaw('id = ? AND (max_uses IS NULL OR uses < max_uses) AND (expires_at IS NULL OR expires_at > ?)', [
        inviteId,
        now,
      ])
      .increment('uses', 1);
    return counted > 0;
  }

  /** Stores an unused invite owned by `accountId`; its id. */
  async insert(invite: {
    code: string;
    accountId: string;
    maxUses: number | null;
    expiresAt: string | null;
    createdAt: string;
  }): Promise<string> {
    const [row] = await this.ctx
      .db('invites')
      .insert({
        code: invite.code,
        account_id: invite.accountId,
        max_uses: invite.maxUses,
        uses: 0,
        expires_at: invite.expiresAt,
        created_at: invite.createdAt,
      })
      .returning<Array<{ id: number }>>('id');
    return String(row.id);
  }

  /** Every invite, newest first. */
  list(): Promise<InviteRow[]> {
    return this.ctx.reader.all<InviteRow>(`SELECT ${COLUMNS} FROM invites ORDER BY id DESC`);
  }

  byCode(code: string): Promise<InviteRow | undefined> {
    return this.ctx.reader.get<InviteRow>(`SELECT ${COLUMNS} FROM invites WHERE code = ?`, [code]);
  }

  byId(id: string): Promise<InviteRow | undefined> {
    return this.ctx.reader.get<InviteRow>(`SELECT ${COLUMNS} FROM invites WHERE id = ?`, [id]);
  }

  /** Sets when the invite expires; false when there is no such invite. */
  async setExpiresAt(id: string, at: string): Promise<boolean> {
    const changed = await this.ctx.db('invites').whereRaw('id = ?', [id]).update({ expires_at: at });
    return changed > 0;
  }

  /** The local accounts that came in through an invite, newest first. */
  invitedAccounts(): Promise<InvitedAccount[]> {
    return this.ctx.reader.all<InvitedAccount>(
      `SELECT CAST(a.id AS TEXT) AS id, a.username, a.display_name, u.created_at, i.code AS invite_code
         FROM users u JOIN accounts a ON a.id = u.account_id JOIN invites i ON i.id = u.invite_id
        ORDER BY u.created_at DESC, a.id DESC`,
    );
  }
}
