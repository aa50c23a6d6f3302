/** SQL of notification filtering: the facts the rules read, policies, permissions and requests. */
import type { SocialContext } from '../context.js';
import { cursorPageSql, type PageQuery } from '../store/paging.js';
import { DEFAULT_POLICY, POLICY_FIELDS, type Policy, type SenderFacts } from './rules.js';

export interface RequestRow {
  id: string;
  from_account_id: string;
  last_status_id: string | null;
  notifications_count: number;
  created_at: string;
  updated_at: string;
}

const REQUEST_COLUMNS = `CAST(r.id AS TEXT) AS id, CAST(r.from_account_id AS TEXT) AS from_account_id, CAST(r.last_status_id AS TEXT) AS last_status_id,
  r.notifications_count, r.created_at, r.updated_at`;
/** Requests from suspended senders are not shown (Mastodon's without_suspended). */
const LIVE_SENDER = `NOT EXISTS (SELECT 1 FROM accounts sa WHERE sa.id = r.from_account_id AND sa.suspended_at IS NOT NULL)`;
const STAFF_ROLES = `('owner', 'admin', 'moderator')`;

export class NotificationPolicyRepo {
  constructor(private readonly ctx: SocialContext) {}

  /** Everything the rules need about (recipient ?1, sender ?2, status ?3) at time ?4, and the recipient's policy, in one query. */
  async facts(
    recipientId: string,
    senderId: string,
    statusId: string | null,
    now: string,
  ): Promise<{ facts: SenderFacts; policy: Policy } | null> {
    const row = await this.ctx.reader.get<Record<string, number | string | null>>(
      `
      WITH RECURSIVE answered(id, depth) AS (
        SELECT in_reply_to_id, 1 FROM statuses WHERE id = ?3 AND in_reply_to_id IS NOT NULL
        UNION ALL
        SELECT s.in_reply_to_id, a.depth + 1 FROM answered a JOIN statuses s ON s.id = a.id WHERE s.in_reply_to_id IS NOT NULL AND a.depth < 100)
      SELECT
        EXISTS (SELECT 1 FROM users WHERE account_id = ?1) AS local,
        EXISTS (SELECT 1 FROM blocks WHERE account_id = ?1 AND target_account_id = ?2)
          OR EXISTS (SELECT 1 FROM mutes WHERE account_id = ?1 AND target_account_id = ?2 AND hide_notifications AND (expires_at IS NULL OR expires_at > ?4))
          OR EXISTS (SELECT 1 FROM conversation_mutes cm JOIN statuses s ON s.conversation_id = cm.conversation_id WHERE cm.account_id = ?1 AND s.id = ?3)
          OR (EXISTS (SELECT 1 FROM account_domain_blocks d WHERE d.account_id = ?1 AND d.domain = lower(a.domain))
              AND NOT EXISTS (SELECT 1 FROM follows WHERE account_id = ?1 AND target_account_id = ?2)) AS refused,
        EXISTS (SELECT 1 FROM follows WHERE account_id = ?1 AND target_account_id = ?2) AS following,
        (SELECT created_at FROM follows WHERE account_id = ?2 AND target_account_id = ?1) AS follower_since,
        a.created_at AS sender_created_at,
        a.silenced_at IS NOT NULL AS sender_limited,
        EXISTS (SELECT 1 FROM notification_permissions WHERE account_id = ?1 AND from_account_id = ?2) AS permitted,
        EXISTS (SELECT 1 FROM users WHERE account_id = ?2 AND role IN ${STAFF_ROLES}) AS sender_staff,
        (SELECT visibility = 'direct' FROM statuses WHERE id = ?3)
          AND NOT EXISTS (SELECT 1 FROM answered JOIN statuses s ON s.id = answered.id JOIN mentions m ON m.status_id = s.id AND m.account_id = ?2
                           WHERE s.account_id = ?1 AND s.visibility = 'direct') AS unsolicited,
        ${POLICY_FIELDS.map((field) => `coalesce(p.${field}, '${DEFAULT_POLICY[field]}') AS ${field}`).join(', ')}
      FROM accounts a LEFT JOIN notification_policies p ON p.account_id = ?1 WHERE a.id = ?2`,
      [recipientId, senderId, statusId, now],
    );
    if (!row || !row.local) return null;
    const facts: SenderFacts = {
      self: recipientId === senderId,
      refused: Boolean(row.refused),
      following: Boolean(row.following),
      followerSince: row.follower_since as string | null,
      senderCreatedAt: String(row.sender_created_at),
      senderLimited: Boolean(row.sender_limited),
      permitted: Boolean(row.permitted),
      senderStaff: Boolean(row.sender_staff),
      unsolicitedPrivateMention: Boolean(row.unsolicited),
    };
    return { facts, policy: Object.fromEntries(POLICY_FIELDS.map((field) => [field, row[field]])) as Policy };
  }

  /** The account's policy: its row, or the defaults while it has none. */
  async policy(accountId: string): Promise<Policy> {
    const row = await this.ctx.reader.get<Policy>(
      `SELECT ${POLICY_FIELDS.join(', ')} FROM notification_policies WHERE account_id = ?`,
      [accountId],
    );
    return row ?? { ...DEFAULT_POLICY };
  }

  async savePolicy(accountId: string, policy: Policy, now: string): Promise<void> {
    await this.ctx.db.raw(
      `INSERT INTO notification_policies (account_id, ${POLICY_FIELDS.join(', ')}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (account_id) DO UPDATE SET ${POLICY_FIELDS.map((f) => `${f} = excluded.${f}`).join(', ')}, updated_at = excluded.updated_at`,
      [accountId, ...POLICY_FIELDS.map((field) => policy[field]), now],
    );
  }

  /** Pending requests and the filtered mentions they hold. */
  async summary(accountId: string): Promise<{ pending_requests_count: number; pending_notifications_count: number }> {
    const row = await this.ctx.reader.get<{ requests: number; notifications: number }>(
      `SELECT count(*) AS requests, coalesce(sum(r.notifications_count), 0) AS notifications
      FROM notification_requests r WHERE r.account_id = ? AND ${LIVE_SENDER}`,
      [accountId],
    );
    return { pending_requests_count: row?.requests ?? 0, pending_notifications_count: row?.notifications ?? 0 };
  }

  requests(accountId: string, page: PageQuery): Promise<RequestRow[]> {
    const { sql, params } = cursorPageSql(
      {
        select: REQUEST_COLUMNS,
        from: 'notification_requests r',
        where: `r.account_id = ?1 AND ${LIVE_SENDER}`,
        cursor: 'r.id',
      },
      [accountId],
      page,
    );
    return this.ctx.reader.all<RequestRow>(sql, params);
  }

  request(accountId: string, id: string): Promise<RequestRow | undefined> {
    return this.ctx.reader.get<RequestRow>(
      `SELECT ${REQUEST_COLUMNS} FROM notification_requests r WHERE r.account_id = ? AND r.id = ?`,
      [accountId, id],
    );
  }

  /** Lets the sender through from now on and shows what they sent; the request goes with its last mention. */
  async accept(accountId: string, request: RequestRow, now: string): Promise<void> {
    await this.ctx.db.transaction(async (trx) => {
      await trx.raw(
        `INSERT INTO notification_permissions (account_id, from_account_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
        [accountId, request.from_account_id, now],
      );
      await trx.raw(
        `UPDATE notifications SET filtered = FALSE WHERE account_id = ? AND from_account_id = ? AND filtered`,
        [accountId, request.from_account_id],
      );
      await trx.raw(`DELETE FROM notification_requests WHERE id = ?`, [request.id]);
    });
  }

  /** Dismisses a request; with `withNotifications`, the sender's filtered notifications go too. */
  async dismiss(accountId: string, request: RequestRow, withNotifications: boolean): Promise<void> {
    await this.ctx.db.transaction(async (trx) => {
      if (withNotifications)
        await trx.raw(`DELETE FROM notifications WHERE account_id = ? AND from_account_id = ? AND filtered`, [
          accountId,
          request.from_account_id,
        ]);
      await trx.raw(`DELETE FROM notification_requests WHERE id = ?`, [request.id]);
    });
  }
}
