import type { Migration } from './index.js';

/**
 * The suspended accounts by id. Every notification read leaves out those from suspended accounts
 * (`NOT EXISTS … suspended_at IS NOT NULL`, once per row looked at): a probe of this index, empty
 * on most instances, instead of the accounts' primary key and row.
 */
export const m20261208_10_social_accounts_suspended: Migration = {
  name: '20261208_10_social_accounts_suspended',
  async up(db) {
    await db.raw(`CREATE INDEX accounts_suspended ON accounts (id) WHERE suspended_at IS NOT NULL`);
  },
};
