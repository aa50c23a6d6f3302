import type { Migration } from './index.js';

/**
 * Media attachments (snowflake ids): the stored files under the data dir, the processing state
 * (`processing` until the background job has made the preview, meta and blurhash), and the status
 * they end up attached to (null while unattached).
 */
export const m20261122_31_social_media: Migration = {
  name: '20261122_31_social_media',
  async up(db) {
    await db.raw(`CREATE TABLE media_attachments (
      id INTEGER PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      status_id INTEGER REFERENCES statuses(id) ON DELETE SET NULL,
      type TEXT NOT NULL,
      content_type TEXT,
      file_name TEXT,
      file_size INTEGER,
      preview_name TEXT,
      thumbnail_name TEXT,
      remote_url TEXT,
      description TEXT,
      focus TEXT,
      meta TEXT,
      blurhash TEXT,
      state TEXT NOT NULL DEFAULT 'processing',
      error TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE INDEX media_attachments_status ON media_attachments (status_id) WHERE status_id IS NOT NULL`);
    await db.raw(`CREATE INDEX media_attachments_account ON media_attachments (account_id, id)`);
    await db.raw(`CREATE INDEX media_attachments_pending ON media_attachments (state) WHERE state = 'processing'`);
  },
};
