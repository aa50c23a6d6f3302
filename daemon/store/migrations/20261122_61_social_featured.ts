import type { Migration } from './index.js';

/**
 * What an account features on its profile (Mastodon's): up to 10 hashtags, and the accounts it
 * endorses (4.4's featured accounts). An endorsement needs a follow, and ends with it.
 */
export const m20261122_61_social_featured: Migration = {
  name: '20261122_61_social_featured',
  async up(db) {
    await db.raw(`CREATE TABLE featured_tags (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      UNIQUE (account_id, tag_id)
    )`);
    await db.raw(`CREATE TABLE account_pins (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      UNIQUE (account_id, target_account_id)
    )`);
    await db.raw(`CREATE TRIGGER account_pins_unfollow AFTER DELETE ON follows BEGIN
      DELETE FROM account_pins WHERE account_id = old.account_id AND target_account_id = old.target_account_id;
    END`);
  },
};
