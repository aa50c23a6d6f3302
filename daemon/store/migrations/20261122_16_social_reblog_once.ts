import type { Migration } from './index.js';

/** One live reblog per account and status, even when two requests race. */
export const m20261122_16_social_reblog_once: Migration = {
  name: '20261122_16_social_reblog_once',
  async up(db) {
    await db.raw(`CREATE UNIQUE INDEX statuses_reblog_once ON statuses (account_id, reblog_of_id)
      WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL`);
  },
};
