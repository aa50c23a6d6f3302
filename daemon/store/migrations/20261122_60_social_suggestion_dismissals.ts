import type { Migration } from './index.js';

/** Accounts one asked not to be suggested again (DELETE /api/v1/suggestions/:account_id). */
export const m20261122_60_social_suggestion_dismissals: Migration = {
  name: '20261122_60_social_suggestion_dismissals',
  async up(db) {
    await db.raw(`CREATE TABLE account_suggestion_dismissals (
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      PRIMARY KEY (account_id, target_account_id)
    )`);
  },
};
