import type { Migration } from './index.js';

/**
 * Scheduled statuses (Mastodon's): the posting parameters kept until their time, and the media
 * they will carry held for them (neither attachable elsewhere nor removed as unattached).
 */
export const m20261122_54_social_scheduled_statuses: Migration = {
  name: '20261122_54_social_scheduled_statuses',
  async up(db) {
    await db.raw(`CREATE TABLE scheduled_statuses (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      scheduled_at TEXT NOT NULL,
      params TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE INDEX scheduled_statuses_due ON scheduled_statuses (scheduled_at)`);
    await db.raw(`CREATE INDEX scheduled_statuses_account ON scheduled_statuses (account_id, id)`);
    await db.raw(
      `ALTER TABLE media_attachments ADD COLUMN scheduled_status_id INTEGER REFERENCES scheduled_statuses(id) ON DELETE SET NULL`,
    );
    await db.raw(
      `CREATE INDEX media_attachments_scheduled ON media_attachments (scheduled_status_id) WHERE scheduled_status_id IS NOT NULL`,
    );
  },
};
