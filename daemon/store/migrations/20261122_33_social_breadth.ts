import type { Migration } from './index.js';

/**
 * Filters (v2, with keywords), announcements (dismissals, reactions), reports (with the statuses
 * they cite, soft-deleted ones included), server rules, custom emojis, Web Push subscriptions
 * (one per access token) and e-mail confirmation state.
 */
export const m20261122_33_social_breadth: Migration = {
  name: '20261122_33_social_breadth',
  async up(db) {
    await db.raw(`CREATE TABLE filters (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      title TEXT NOT NULL,
      context TEXT NOT NULL,
      action TEXT NOT NULL DEFAULT 'warn',
      expires_at TEXT,
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE INDEX filters_account ON filters (account_id)`);
    await db.raw(`CREATE TABLE filter_keywords (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      filter_id INTEGER NOT NULL REFERENCES filters(id) ON DELETE CASCADE,
      keyword TEXT NOT NULL,
      whole_word INTEGER NOT NULL DEFAULT 1,
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE INDEX filter_keywords_filter ON filter_keywords (filter_id)`);

    await db.raw(`CREATE TABLE announcements (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      text TEXT NOT NULL,
      content TEXT NOT NULL,
      starts_at TEXT,
      ends_at TEXT,
      all_day INTEGER NOT NULL DEFAULT 0,
      published_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE TABLE announcement_dismissals (
      announcement_id INTEGER NOT NULL REFERENCES announcements(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      PRIMARY KEY (announcement_id, account_id)
    )`);
    await db.raw(`CREATE TABLE announcement_reactions (
      announcement_id INTEGER NOT NULL REFERENCES announcements(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (announcement_id, account_id, name)
    )`);

    await db.raw(`CREATE TABLE reports (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      comment TEXT NOT NULL DEFAULT '',
      category TEXT NOT NULL DEFAULT 'other',
      rule_ids TEXT NOT NULL DEFAULT '[]',
      forwarded INTEGER NOT NULL DEFAULT 0,
      forward_to_domains TEXT NOT NULL DEFAULT '[]',
      action_taken_at TEXT,
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE TABLE report_statuses (
      report_id INTEGER NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
      status_id INTEGER NOT NULL REFERENCES statuses(id),
      PRIMARY KEY (report_id, status_id)
    )`);
    await db.raw(`CREATE INDEX report_statuses_status ON report_statuses (status_id)`);

    await db.raw(`CREATE TABLE server_rules (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      text TEXT NOT NULL,
      hint TEXT NOT NULL DEFAULT '',
      position INTEGER NOT NULL DEFAULT 0
    )`);
    await db.raw(`CREATE TABLE custom_emojis (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      shortcode TEXT NOT NULL,
      domain TEXT,
      image_url TEXT NOT NULL,
      static_url TEXT NOT NULL,
      visible_in_picker INTEGER NOT NULL DEFAULT 1,
      disabled INTEGER NOT NULL DEFAULT 0,
      category TEXT,
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE UNIQUE INDEX custom_emojis_shortcode ON custom_emojis (shortcode, coalesce(domain, ''))`);

    await db.raw(`CREATE TABLE push_subscriptions (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      token_id INTEGER NOT NULL UNIQUE REFERENCES oauth_tokens(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      endpoint TEXT NOT NULL,
      key_p256dh TEXT NOT NULL,
      key_auth TEXT NOT NULL,
      alerts TEXT NOT NULL,
      policy TEXT NOT NULL DEFAULT 'all',
      standard INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE INDEX push_subscriptions_account ON push_subscriptions (account_id)`);

    await db.raw(`ALTER TABLE users ADD COLUMN confirmed_at TEXT`);
    await db.raw(`ALTER TABLE users ADD COLUMN unconfirmed_email TEXT`);
    await db.raw(`ALTER TABLE users ADD COLUMN confirmation_token TEXT`);
    await db.raw(`ALTER TABLE users ADD COLUMN confirmation_sent_at TEXT`);
    await db.raw(`ALTER TABLE users ADD COLUMN sign_up_ip TEXT`);
    // Accounts made before confirmation existed count as confirmed.
    await db.raw(`UPDATE users SET confirmed_at = created_at`);
  },
};
