import type { Migration } from './index.js';

/**
 * Lists (Mastodon's): an account's named sets of accounts it follows or has asked to follow,
 * each with its replies policy and whether its members leave the home timeline (exclusive).
 */
export const m20261122_53_social_lists: Migration = {
  name: '20261122_53_social_lists',
  async up(db) {
    await db.raw(`CREATE TABLE lists (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      title TEXT NOT NULL,
      replies_policy TEXT NOT NULL DEFAULT 'list',
      exclusive INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE INDEX lists_account ON lists (account_id, id)`);
    await db.raw(`CREATE TABLE list_accounts (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      list_id INTEGER NOT NULL REFERENCES lists(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      UNIQUE (list_id, account_id)
    )`);
    await db.raw(`CREATE INDEX list_accounts_account ON list_accounts (account_id)`);
    // A member stays only while the list's owner follows them or has asked to, whoever ends that
    // (an unfollow, a rejected request, a block, a peer's Reject). An accepted request turns into a
    // follow before the request goes, so its members stay.
    for (const [table, other] of [
      ['follows', 'follow_requests'],
      ['follow_requests', 'follows'],
    ]) {
      await db.raw(`CREATE TRIGGER ${table}_end_list_membership AFTER DELETE ON ${table}
        WHEN NOT EXISTS (SELECT 1 FROM ${other} o WHERE o.account_id = old.account_id AND o.target_account_id = old.target_account_id) BEGIN
        DELETE FROM list_accounts WHERE account_id = old.target_account_id AND list_id IN (SELECT id FROM lists WHERE account_id = old.account_id);
      END`);
    }
  },
};
