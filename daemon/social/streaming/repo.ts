/**
 * SQL for the stream hub: what it needs to know of a new status to pick its channels, and which
 * connected accounts and lists it reaches. Reads only, through the prepared reader.
 */
import { dialectOf, idList } from '../../store/dialect.js';
import type { SocialContext } from '../context.js';
import { listShows } from '../timelines/repo.js';

export interface StatusFacts {
  visibility: string;
  local: boolean;
  reblog: boolean;
  /** A reply to someone else: public channels leave it out, as Mastodon's do. */
  replyToOther: boolean;
  media: boolean;
  /** Its hashtags, lowercased. */
  tags: string[];
}

export interface HomeAudience {
  reblog: boolean;
  /** Public and not a reblog: followers of its hashtags get it too. */
  tagged: boolean;
  /** Direct: of the followers, only those it mentions. */
  direct: boolean;
}

export class StreamingRepo {
  constructor(private readonly ctx: SocialContext) {}

  async statusFacts(statusId: string): Promise<StatusFacts | null> {
    const row = await this.ctx.reader.get<{
      visibility: string;
      local: number;
      reblog: number;
      reply_other: number;
      media: number;
      tags: string | null;
    }>(
      `
      SELECT s.visibility, s.local, s.reblog_of_id IS NOT NULL AS reblog,
        (s.in_reply_to_id IS NOT NULL AND s.in_reply_to_account_id != s.account_id) AS reply_other,
        EXISTS (SELECT 1 FROM media_attachments m WHERE m.status_id = s.id) AS media,
        (SELECT ${dialectOf(this.ctx.db).jsonArrayOf('lower(t.name)')} FROM status_tags st JOIN tags t ON t.id = st.tag_id WHERE st.status_id = s.id) AS tags
      FROM statuses s WHERE s.id = ?`,
      [statusId],
    );
    if (!row) return null;
    return {
      visibility: row.visibility,
      local: Boolean(row.local),
      reblog: Boolean(row.reblog),
      replyToOther: Boolean(row.reply_other),
      media: Boolean(row.media),
      tags: JSON.parse(row.tags ?? '[]') as string[],
    };
  }

  /**
   * Of the `connected` accounts, those whose home feed gets the status: local followers of its
   * author (who did not mute them or hide their reblogs) and followers of one of its hashtags.
   */
  async homeRecipients(
    statusId: string,
    authorId: string,
    connected: readonly string[],
    audience: HomeAudience,
  ): Promise<string[]> {
    // The ids table's bare ? comes first in the text: the first parameter on both engines.
    const rows = await this.ctx.reader.all<{ id: string }>(
      `WITH connected AS (SELECT CAST(c.value AS BIGINT) AS id FROM ${dialectOf(this.ctx.db).idsTable('c')})
      SELECT CAST(account_id AS TEXT) AS id FROM follows
      WHERE target_account_id = ?2 AND (?3 = 0 OR show_reblogs) AND account_id IN (SELECT id FROM connected)
        AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = follows.account_id AND m.target_account_id = ?2)
        AND (?6 = 0 OR EXISTS (SELECT 1 FROM mentions mn WHERE mn.status_id = ?4 AND mn.account_id = follows.account_id))
      UNION SELECT CAST(tf.account_id AS TEXT) FROM status_tags st JOIN tag_follows tf ON tf.tag_id = st.tag_id
      WHERE ?5 = 1 AND st.status_id = ?4 AND tf.account_id IN (SELECT id FROM connected)
        AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = tf.account_id AND m.target_account_id = ?2)
        AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = tf.account_id AND b.target_account_id = ?2) OR (b.account_id = ?2 AND b.target_account_id = tf.account_id))`,
      [
        idList(connected),
        authorId,
        audience.reblog ? 1 : 0,
        statusId,
        audience.tagged ? 1 : 0,
        audience.direct ? 1 : 0,
      ],
    );
    return rows.map((row) => row.id);
  }

  /** Of the given lists, those that show the status (the list timeline's own rule), with their owners. */
  async listsShowing(
    statusId: string,
    listIds: readonly string[],
  ): Promise<Array<{ listId: string; ownerId: string }>> {
    const rows = await this.ctx.reader.all<{ list_id: string; owner_id: string }>(
      `WITH wanted AS (SELECT CAST(w.value AS BIGINT) AS id FROM ${dialectOf(this.ctx.db).idsTable('w')})
      SELECT CAST(l.id AS TEXT) AS list_id, CAST(l.account_id AS TEXT) AS owner_id
      FROM lists l JOIN statuses s ON s.id = ?2 WHERE l.id IN (SELECT id FROM wanted) AND ${listShows('l.account_id', 'l.id')}`,
      [idList(listIds), statusId],
    );
    return rows.map((row) => ({ listId: row.list_id, ownerId: row.owner_id }));
  }

  /** Either blocks the other, or the viewer mutes the author: the status stays off the viewer's public streams. */
  async blockedOrMuted(viewerId: string, authorId: string): Promise<boolean> {
    return Boolean(
      await this.ctx.reader.get(
        `SELECT 1 AS x FROM blocks WHERE (account_id = ?1 AND target_account_id = ?2) OR (account_id = ?2 AND target_account_id = ?1)
      UNION ALL SELECT 1 FROM mutes WHERE account_id = ?1 AND target_account_id = ?2`,
        [viewerId, authorId],
      ),
    );
  }

  async ownsList(accountId: string, listId: string): Promise<boolean> {
    return Boolean(
      await this.ctx.reader.get(`SELECT 1 AS x FROM lists WHERE id = ? AND account_id = ?`, [listId, accountId]),
    );
  }
}
