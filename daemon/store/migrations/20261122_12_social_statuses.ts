import type { Migration } from './index.js';

/**
 * Statuses (local and remote: `local`, `uri`, `url`), conversations, mentions, and what accounts do
 * to statuses: favourites, bookmarks, pins, conversation mutes. Deletion is soft (`deleted_at`).
 */
export const m20261122_12_social_statuses: Migration = {
  name: '20261122_12_social_statuses',
  async up(db) {
    await db.raw(`CREATE TABLE conversations (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      uri TEXT,
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE TABLE statuses (
      id INTEGER PRIMARY KEY,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      uri TEXT NOT NULL,
      url TEXT,
      local INTEGER NOT NULL DEFAULT 1,
      text TEXT NOT NULL DEFAULT '',
      content TEXT NOT NULL DEFAULT '',
      spoiler_text TEXT NOT NULL DEFAULT '',
      sensitive INTEGER NOT NULL DEFAULT 0,
      visibility TEXT NOT NULL DEFAULT 'public',
      language TEXT,
      in_reply_to_id INTEGER,
      in_reply_to_account_id INTEGER,
      reblog_of_id INTEGER,
      conversation_id INTEGER REFERENCES conversations(id),
      application_id INTEGER REFERENCES oauth_apps(id) ON DELETE SET NULL,
      replies_count INTEGER NOT NULL DEFAULT 0,
      reblogs_count INTEGER NOT NULL DEFAULT 0,
      favourites_count INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      edited_at TEXT,
      deleted_at TEXT
    )`);
    await db.raw(`CREATE UNIQUE INDEX statuses_uri ON statuses (uri)`);
    await db.raw(`CREATE INDEX statuses_account ON statuses (account_id, id DESC)`);
    await db.raw(`CREATE INDEX statuses_reblog ON statuses (reblog_of_id, account_id) WHERE reblog_of_id IS NOT NULL`);
    await db.raw(`CREATE INDEX statuses_reply ON statuses (in_reply_to_id) WHERE in_reply_to_id IS NOT NULL`);

    await db.raw(`CREATE TABLE mentions (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      UNIQUE (status_id, account_id)
    )`);
    await db.raw(`CREATE INDEX mentions_account ON mentions (account_id, status_id)`);

    for (const table of ['favourites', 'bookmarks', 'status_pins']) {
      await db.raw(`CREATE TABLE ${table} (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL,
        UNIQUE (account_id, status_id)
      )`);
      await db.raw(`CREATE INDEX ${table}_status ON ${table} (status_id)`);
    }
    await db.raw(`CREATE TABLE conversation_mutes (
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
      PRIMARY KEY (account_id, conversation_id)
    )`);
  },
};
