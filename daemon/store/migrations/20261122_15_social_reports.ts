import type { Migration } from './index.js';

/** Reports by local accounts about an account and some of its statuses (deleted ones included). */
export const m20261122_15_social_reports: Migration = {
  name: '20261122_15_social_reports',
  async up(db) {
    await db.raw(`CREATE TABLE reports (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      status_ids TEXT NOT NULL DEFAULT '[]',
      rule_ids TEXT NOT NULL DEFAULT '[]',
      comment TEXT NOT NULL DEFAULT '',
      category TEXT NOT NULL DEFAULT 'other',
      forwarded INTEGER NOT NULL DEFAULT 0,
      forward_to_domains TEXT NOT NULL DEFAULT '[]',
      action_taken_at TEXT,
      created_at TEXT NOT NULL
    )`);
    await db.raw('CREATE INDEX reports_target ON reports (target_account_id)');
  },
};
