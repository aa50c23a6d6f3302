import type { Migration } from './index.js';

/**
 * Notification filtering (Mastodon 4.3+): each account's policy (a row only once changed; the
 * defaults filter private mentions from strangers and notifications from limited accounts), the
 * senders let through, and a request per sender whose filtered mentions wait to be accepted or
 * dismissed. Triggers keep a request's count and last status, whoever adds or removes the
 * notifications, and drop it when none is left.
 */
export const m20261122_59_social_notification_policy: Migration = {
  name: '20261122_59_social_notification_policy',
  async up(db) {
    const choice = (name: string, fallback: string) =>
      `${name} TEXT NOT NULL DEFAULT '${fallback}' CHECK (${name} IN ('accept', 'filter', 'drop'))`;
    await db.raw(`CREATE TABLE notification_policies (
      account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      ${choice('for_not_following', 'accept')},
      ${choice('for_not_followers', 'accept')},
      ${choice('for_new_accounts', 'accept')},
      ${choice('for_private_mentions', 'filter')},
      ${choice('for_limited_accounts', 'filter')},
      updated_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE TABLE notification_permissions (
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      PRIMARY KEY (account_id, from_account_id)
    )`);
    await db.raw(`CREATE TABLE notification_requests (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      last_status_id INTEGER,
      notifications_count INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (account_id, from_account_id)
    )`);
    await db.raw(
      `CREATE INDEX notifications_filtered_from ON notifications (account_id, from_account_id, type) WHERE filtered = 1`,
    );
    // Mastodon counts at most 100 of a sender's filtered mentions.
    const count = (
      row: 'new' | 'old',
    ) => `(SELECT count(*) FROM (SELECT 1 FROM notifications n WHERE n.account_id = ${row}.account_id
      AND n.from_account_id = ${row}.from_account_id AND n.filtered = 1 AND n.type = 'mention' LIMIT 100))`;
    const now = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
    await db.raw(`CREATE TRIGGER notification_requests_add AFTER INSERT ON notifications WHEN new.filtered = 1 AND new.type = 'mention' BEGIN
      INSERT INTO notification_requests (account_id, from_account_id, last_status_id, notifications_count, created_at, updated_at)
        VALUES (new.account_id, new.from_account_id, new.status_id, ${count('new')}, ${now}, ${now})
      ON CONFLICT (account_id, from_account_id) DO UPDATE SET last_status_id = excluded.last_status_id,
        notifications_count = excluded.notifications_count, updated_at = excluded.updated_at;
    END`);
    for (const [event, when] of [
      ['DELETE', 'old.filtered = 1'],
      ['UPDATE OF filtered', 'old.filtered = 1 AND new.filtered = 0'],
    ] as const) {
      const name = event === 'DELETE' ? 'notification_requests_remove' : 'notification_requests_unfilter';
      await db.raw(`CREATE TRIGGER ${name} AFTER ${event} ON notifications WHEN ${when} AND old.type = 'mention' BEGIN
        UPDATE notification_requests SET notifications_count = ${count('old')} WHERE account_id = old.account_id AND from_account_id = old.from_account_id;
        DELETE FROM notification_requests WHERE account_id = old.account_id AND from_account_id = old.from_account_id AND notifications_count = 0;
      END`);
    }
    // A held-back direct mention stays out of the recipient's conversation list (its mention put it
    // there a moment before): the conversation keeps its newest status not held back, or leaves
    // the list. Accepted, it comes back.
    await db.raw(`CREATE TRIGGER account_conversations_held_back AFTER INSERT ON notifications
      WHEN new.filtered = 1 AND new.type = 'mention' AND (SELECT visibility FROM statuses WHERE id = new.status_id) = 'direct' BEGIN
      UPDATE account_conversations SET last_status_id = coalesce((SELECT max(s.id) FROM statuses s
          WHERE s.conversation_id = account_conversations.conversation_id AND s.visibility = 'direct' AND s.deleted_at IS NULL
            AND (s.account_id = new.account_id OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = new.account_id))
            AND NOT EXISTS (SELECT 1 FROM notifications h WHERE h.account_id = new.account_id AND h.status_id = s.id AND h.type = 'mention' AND h.filtered = 1)), 0)
        WHERE account_id = new.account_id AND conversation_id = (SELECT conversation_id FROM statuses WHERE id = new.status_id);
      DELETE FROM account_conversations WHERE account_id = new.account_id AND last_status_id = 0;
    END`);
    await db.raw(`CREATE TRIGGER account_conversations_accepted AFTER UPDATE OF filtered ON notifications
      WHEN old.filtered = 1 AND new.filtered = 0 AND new.type = 'mention' AND (SELECT visibility FROM statuses WHERE id = new.status_id) = 'direct' BEGIN
      INSERT INTO account_conversations (account_id, conversation_id, last_status_id, unread)
        SELECT new.account_id, s.conversation_id, s.id, 1 FROM statuses s WHERE s.id = new.status_id AND s.conversation_id IS NOT NULL AND s.deleted_at IS NULL
      ON CONFLICT (account_id, conversation_id) DO UPDATE SET
        unread = CASE WHEN excluded.last_status_id > last_status_id THEN 1 ELSE unread END,
        last_status_id = max(last_status_id, excluded.last_status_id);
    END`);
  },
};
