import type { Migration } from './index.js';

/**
 * Status edit history (Mastodon's status_edits): on a status's first edit its original is kept,
 * then every version after each edit, with the media it had then.
 */
export const m20261122_52_social_status_edits: Migration = {
  name: '20261122_52_social_status_edits',
  async up(db) {
    await db.raw(`CREATE TABLE status_edits (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL,
      text TEXT NOT NULL,
      content TEXT NOT NULL,
      spoiler_text TEXT NOT NULL,
      sensitive INTEGER NOT NULL,
      media_ids TEXT NOT NULL DEFAULT '[]',
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE INDEX status_edits_status ON status_edits (status_id, id)`);
  },
};
