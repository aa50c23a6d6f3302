import type { Migration } from './index.js';

/**
 * Conversations (Mastodon's direct-message list): for each local account, the conversations it
 * takes part in through direct statuses, with the newest one's id and whether it is unread. A
 * trigger on mentions keeps it, so local posts and peers' alike reach it.
 */
export const m20261122_57_social_conversations: Migration = {
  name: '20261122_57_social_conversations',
  async up(db) {
    await db.raw(`CREATE TABLE account_conversations (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      conversation_id INTEGER NOT NULL,
      last_status_id INTEGER NOT NULL,
      unread INTEGER NOT NULL DEFAULT 0,
      UNIQUE (account_id, conversation_id)
    )`);
    await db.raw(`CREATE INDEX account_conversations_recent ON account_conversations (account_id, last_status_id)`);
    // The direct statuses of a conversation, to find its newest and who takes part.
    await db.raw(
      `CREATE INDEX statuses_direct_conversation ON statuses (conversation_id, id) WHERE visibility = 'direct'`,
    );
    // A direct status reaches its author's list and that of each local account it mentions;
    // unread for everyone but its author.
    await db.raw(`CREATE TRIGGER account_conversations_direct AFTER INSERT ON mentions
      WHEN (SELECT visibility FROM statuses WHERE id = new.status_id) = 'direct' BEGIN
      INSERT INTO account_conversations (account_id, conversation_id, last_status_id, unread)
        SELECT p.account_id, s.conversation_id, s.id, p.account_id != s.account_id
        FROM statuses s JOIN (SELECT new.account_id AS account_id UNION SELECT account_id FROM statuses WHERE id = new.status_id) p
        WHERE s.id = new.status_id AND s.conversation_id IS NOT NULL AND EXISTS (SELECT 1 FROM users u WHERE u.account_id = p.account_id)
      ON CONFLICT (account_id, conversation_id) DO UPDATE SET
        unread = CASE WHEN excluded.last_status_id > last_status_id THEN excluded.unread ELSE unread END,
        last_status_id = max(last_status_id, excluded.last_status_id);
    END`);
  },
};
