import type { Migration } from './index.js';

/**
 * Notifications (plain increasing ids, as in Mastodon) with their stored group key, the sticky
 * 12-hour group windows, read markers and the per-account rate-limit counters.
 * Indexes serve the two hot shapes: the newest of an account, and one group of an account.
 */
export const m20261122_14_social_notifications: Migration = {
  name: '20261122_14_social_notifications',
  async up(db) {
    await db.raw(`CREATE TABLE notifications (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      from_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      type TEXT NOT NULL,
      status_id INTEGER,
      activity_id INTEGER,
      group_key TEXT,
      filtered INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE INDEX notifications_account ON notifications (account_id, id DESC)`);
    await db.raw(
      `CREATE INDEX notifications_group ON notifications (account_id, group_key, id) WHERE group_key IS NOT NULL`,
    );
    await db.raw(`CREATE INDEX notifications_activity ON notifications (activity_id) WHERE activity_id IS NOT NULL`);
    await db.raw(`CREATE INDEX notifications_from ON notifications (from_account_id)`);
    await db.raw(`CREATE TABLE notification_group_windows (
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      prefix TEXT NOT NULL,
      hour_bucket INTEGER NOT NULL,
      PRIMARY KEY (account_id, prefix)
    )`);
    await db.raw(`CREATE TABLE markers (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      timeline TEXT NOT NULL,
      last_read_id INTEGER NOT NULL,
      version INTEGER NOT NULL DEFAULT 0,
      updated_at TEXT NOT NULL,
      UNIQUE (account_id, timeline)
    )`);
    await db.raw(`CREATE TABLE rate_limits (
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      family TEXT NOT NULL,
      window_start INTEGER NOT NULL,
      count INTEGER NOT NULL,
      PRIMARY KEY (account_id, family, window_start)
    )`);
  },
};
