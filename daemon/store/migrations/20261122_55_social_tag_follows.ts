import type { Migration } from './index.js';

/**
 * Followed hashtags: public posts carrying a hashtag an account follows join its home feed, as
 * they are tagged (local posts and peers' alike); unfollowing takes out those that nothing else
 * (the author followed, another followed hashtag, one's own post) keeps there.
 */
export const m20261122_55_social_tag_follows: Migration = {
  name: '20261122_55_social_tag_follows',
  async up(db) {
    await db.raw(`CREATE TABLE tag_follows (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      UNIQUE (account_id, tag_id)
    )`);
    await db.raw(`CREATE INDEX tag_follows_tag ON tag_follows (tag_id)`);
    // Whether status s reaches `account`'s home through a hashtag it follows.
    const followedTag = (account: string) => `(s.visibility = 'public' AND s.reblog_of_id IS NULL AND EXISTS (
      SELECT 1 FROM status_tags ft JOIN tag_follows tf ON tf.tag_id = ft.tag_id AND tf.account_id = ${account} WHERE ft.status_id = s.id))`;
    await db.raw(`CREATE TRIGGER home_feed_tag_insert AFTER INSERT ON status_tags BEGIN
      INSERT OR IGNORE INTO home_feed (account_id, status_id)
        SELECT tf.account_id, s.id FROM tag_follows tf JOIN users u ON u.account_id = tf.account_id JOIN statuses s ON s.id = new.status_id
        WHERE tf.tag_id = new.tag_id AND s.visibility = 'public' AND s.reblog_of_id IS NULL;
    END`);
    await db.raw(`CREATE TRIGGER home_feed_tag_unfollow AFTER DELETE ON tag_follows BEGIN
      DELETE FROM home_feed WHERE account_id = old.account_id AND status_id IN (
        SELECT s.id FROM status_tags st JOIN statuses s ON s.id = st.status_id
        WHERE st.tag_id = old.tag_id AND s.account_id != old.account_id
          AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = old.account_id AND f.target_account_id = s.account_id)
          AND NOT ${followedTag('old.account_id')});
    END`);
    // Unfollowing an account keeps its posts that a followed hashtag brought.
    await db.raw(`DROP TRIGGER home_feed_follow_delete`);
    await db.raw(`CREATE TRIGGER home_feed_follow_delete AFTER DELETE ON follows BEGIN
      DELETE FROM home_feed WHERE account_id = old.account_id AND status_id IN (
        SELECT s.id FROM statuses s WHERE s.account_id = old.target_account_id AND NOT ${followedTag('old.account_id')});
    END`);
  },
};
