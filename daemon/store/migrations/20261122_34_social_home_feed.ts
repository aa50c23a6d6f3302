import type { Migration } from './index.js';

/**
 * Home feeds, materialised: one row per (local account, status) for the account's own statuses
 * and those of the accounts it follows, kept by triggers on every path that writes statuses or
 * follows (the API, federation, imports). Reading a home page is then an index range of the
 * viewer's rows, whatever the size of the follow graph. Deletions, mutes, blocks and
 * show_reblogs are applied when reading.
 */
export const m20261122_34_social_home_feed: Migration = {
  name: '20261122_34_social_home_feed',
  async up(db) {
    await db.raw(`CREATE TABLE home_feed (
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
      PRIMARY KEY (account_id, status_id)
    ) WITHOUT ROWID`);
    await db.raw(`CREATE INDEX home_feed_status ON home_feed (status_id)`);
    await db.raw(`CREATE TRIGGER home_feed_status_insert AFTER INSERT ON statuses BEGIN
      INSERT OR IGNORE INTO home_feed (account_id, status_id)
        SELECT f.account_id, new.id FROM follows f JOIN users u ON u.account_id = f.account_id WHERE f.target_account_id = new.account_id
        UNION ALL SELECT new.account_id, new.id WHERE EXISTS (SELECT 1 FROM users WHERE account_id = new.account_id);
    END`);
    // A new follow brings the followed account's recent statuses into the follower's feed.
    await db.raw(`CREATE TRIGGER home_feed_follow_insert AFTER INSERT ON follows WHEN EXISTS (SELECT 1 FROM users WHERE account_id = new.account_id) BEGIN
      INSERT OR IGNORE INTO home_feed (account_id, status_id)
        SELECT new.account_id, id FROM statuses WHERE account_id = new.target_account_id ORDER BY id DESC LIMIT 400;
    END`);
    await db.raw(`CREATE TRIGGER home_feed_follow_delete AFTER DELETE ON follows BEGIN
      DELETE FROM home_feed WHERE account_id = old.account_id AND status_id IN (SELECT id FROM statuses WHERE account_id = old.target_account_id);
    END`);
    await db.raw(`INSERT OR IGNORE INTO home_feed (account_id, status_id)
      SELECT f.account_id, s.id FROM follows f JOIN users u ON u.account_id = f.account_id JOIN statuses s ON s.account_id = f.target_account_id
      UNION ALL SELECT s.account_id, s.id FROM statuses s JOIN users u ON u.account_id = s.account_id`);
  },
};
