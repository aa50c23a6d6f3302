/**
 * SQL for an account's conversations (direct messages). The list row says only which
 * conversation and when it last moved; its newest status the account may still see and who else
 * takes part are read from the statuses themselves, so a deleted message simply drops out.
 */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { engineSql } from '../../store/engine-sql.js';
import { dialectOf } from '../../store/dialect.js';
import { rawRows } from '../../store/dialect.js';
import { cursorPageSql, type PageQuery } from '../store/paging.js';

export interface ConversationRow {
  id: string;
  unread: number;
  /** Paging position: the id of the status that last moved it. */
  edge_id: string;
  /** Its newest direct status not deleted that the account wrote or is mentioned in. */
  last_status_id: string | null;
  /** The other accounts in it (JSON array of ids). */
  participant_ids: string;
}

const DIRECT_OF = (conversation: string) => `s.conversation_id = ${conversation} AND s.visibility = 'direct'`;

const COLUMNS = engineSql(
  (dialect) => `CAST(ac.id AS TEXT) AS id, ac.unread, CAST(ac.last_status_id AS TEXT) AS edge_id,
  (SELECT CAST(max(s.id) AS TEXT) FROM statuses s WHERE ${DIRECT_OF('ac.conversation_id')} AND s.deleted_at IS NULL
     AND (s.account_id = ac.account_id OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = ac.account_id))) AS last_status_id,
  (SELECT ${dialect.jsonArrayAgg('p.id')} FROM (SELECT DISTINCT CAST(x.id AS TEXT) AS id FROM (
      SELECT s.account_id AS id FROM statuses s WHERE ${DIRECT_OF('ac.conversation_id')}
      UNION SELECT m.account_id FROM mentions m JOIN statuses s ON s.id = m.status_id WHERE ${DIRECT_OF('ac.conversation_id')}) x
    WHERE x.id != ac.account_id) p) AS participant_ids`,
);

export class ConversationsRepo {
  constructor(private readonly ctx: SocialContext) {}

  page(accountId: string, page: PageQuery): Promise<ConversationRow[]> {
    const { sql, params } = cursorPageSql(
      {
        select: COLUMNS(this.ctx.reader.engine),
        from: 'account_conversations ac',
        where: 'ac.account_id = ?1',
        cursor: 'ac.last_status_id',
      },
      [accountId],
      page,
    );
    return this.ctx.reader.all<ConversationRow>(sql, params);
  }

  one(accountId: string, id: string): Promise<ConversationRow | undefined> {
    return this.ctx.reader.get<ConversationRow>(
      `SELECT ${COLUMNS(this.ctx.reader.engine)} FROM account_conversations ac WHERE ac.account_id = ? AND ac.id = ?`,
      [accountId, id],
    );
  }

  /** The local participants' list entries of a status's conversation (who gets the `conversation` event). */
  ofStatus(statusId: string): Promise<Array<{ account_id: string; id: string }>> {
    return this.ctx.reader.all(
      `SELECT CAST(ac.account_id AS TEXT) AS account_id, CAST(ac.id AS TEXT) AS id FROM account_conversations ac
      JOIN statuses s ON s.conversation_id = ac.conversation_id WHERE s.id = ? AND s.visibility = 'direct'
        AND (s.account_id = ac.account_id OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = ac.account_id))`,
      [statusId],
    );
  }

  /**
   * A direct status that newly mentions `mentionedIds` reaches the conversation lists of those of
   * them with a login here and of its author: moved to it, and unread for all but its author.
   */
  async reach(trx: Knex, statusId: string, mentionedIds: readonly string[]): Promise<void> {
    const dialect = dialectOf(trx);
    await trx.raw(
      `INSERT INTO account_conversations AS ac (account_id, conversation_id, last_status_id, unread)
        SELECT p.account_id, s.conversation_id, s.id, p.account_id != s.account_id
        FROM statuses s JOIN (SELECT CAST(j.value AS BIGINT) AS account_id FROM ${dialect.idsTable('j')}
          UNION SELECT account_id FROM statuses WHERE id = ?) p ON TRUE
        WHERE s.id = ? AND s.visibility = 'direct' AND s.conversation_id IS NOT NULL
          AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = p.account_id)
      ON CONFLICT (account_id, conversation_id) DO UPDATE SET
        unread = CASE WHEN excluded.last_status_id > ac.last_status_id THEN excluded.unread ELSE ac.unread END,
        last_status_id = ${dialect.greatest('ac.last_status_id', 'excluded.last_status_id')}`,
      [JSON.stringify(mentionedIds), statusId, statusId],
    );
  }

  async markRead(accountId: string, id: string): Promise<boolean> {
    const rows = await rawRows(
      this.ctx.db,
      `UPDATE account_conversations SET unread = FALSE WHERE account_id = ? AND id = ? RETURNING id`,
      [accountId, id],
    );
    return rows.length > 0;
  }

  /** Takes it off the account's list (it comes back with the next message). */
  async remove(accountId: string, id: string): Promise<boolean> {
    const rows = await rawRows(
      this.ctx.db,
      `DELETE FROM account_conversations WHERE account_id = ? AND id = ? RETURNING id`,
      [accountId, id],
    );
    return rows.length > 0;
  }
}
