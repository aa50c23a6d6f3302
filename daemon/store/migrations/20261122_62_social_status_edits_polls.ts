import type { Migration } from './index.js';

/** Each version of a status with a poll keeps the poll's options (Mastodon's StatusEdit#poll_options). */
export const m20261122_62_social_status_edits_polls: Migration = {
  name: '20261122_62_social_status_edits_polls',
  async up(db) {
    await db.raw(`ALTER TABLE status_edits ADD COLUMN poll_options TEXT`);
  },
};
