import type { Migration } from './index.js';

/**
 * Hashtags (with the review flag autosuggestions use) and the statuses carrying them; full-text
 * indexes (FTS5, external content, kept in step by triggers) over statuses and accounts for search.
 */
export const m20261122_32_social_tags_search: Migration = {
  name: '20261122_32_social_tags_search',
  async up(db) {
    await db.raw(`CREATE TABLE tags (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      name TEXT NOT NULL,
      reviewed_at TEXT,
      listable INTEGER NOT NULL DEFAULT 1,
      created_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE UNIQUE INDEX tags_name ON tags (lower(name))`);
    await db.raw(`CREATE TABLE status_tags (
      status_id INTEGER NOT NULL REFERENCES statuses(id) ON DELETE CASCADE,
      tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
      PRIMARY KEY (tag_id, status_id)
    ) WITHOUT ROWID`);
    await db.raw(`CREATE INDEX status_tags_status ON status_tags (status_id)`);

    await db.raw(
      `CREATE VIRTUAL TABLE statuses_fts USING fts5(text, spoiler_text, content='statuses', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3')`,
    );
    await db.raw(`CREATE TRIGGER statuses_fts_insert AFTER INSERT ON statuses WHEN new.reblog_of_id IS NULL BEGIN
      INSERT INTO statuses_fts (rowid, text, spoiler_text) VALUES (new.id, new.text, new.spoiler_text);
    END`);
    await db.raw(`CREATE TRIGGER statuses_fts_update AFTER UPDATE OF text, spoiler_text ON statuses WHEN new.reblog_of_id IS NULL BEGIN
      INSERT INTO statuses_fts (statuses_fts, rowid, text, spoiler_text) VALUES ('delete', old.id, old.text, old.spoiler_text);
      INSERT INTO statuses_fts (rowid, text, spoiler_text) VALUES (new.id, new.text, new.spoiler_text);
    END`);
    await db.raw(`CREATE TRIGGER statuses_fts_delete AFTER DELETE ON statuses WHEN old.reblog_of_id IS NULL BEGIN
      INSERT INTO statuses_fts (statuses_fts, rowid, text, spoiler_text) VALUES ('delete', old.id, old.text, old.spoiler_text);
    END`);
    await db.raw(
      `INSERT INTO statuses_fts (rowid, text, spoiler_text) SELECT id, text, spoiler_text FROM statuses WHERE reblog_of_id IS NULL`,
    );

    await db.raw(
      `CREATE VIRTUAL TABLE accounts_fts USING fts5(username, display_name, domain, content='accounts', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='1 2 3')`,
    );
    await db.raw(`CREATE TRIGGER accounts_fts_insert AFTER INSERT ON accounts BEGIN
      INSERT INTO accounts_fts (rowid, username, display_name, domain) VALUES (new.id, new.username, new.display_name, new.domain);
    END`);
    await db.raw(`CREATE TRIGGER accounts_fts_update AFTER UPDATE OF username, display_name, domain ON accounts BEGIN
      INSERT INTO accounts_fts (accounts_fts, rowid, username, display_name, domain) VALUES ('delete', old.id, old.username, old.display_name, old.domain);
      INSERT INTO accounts_fts (rowid, username, display_name, domain) VALUES (new.id, new.username, new.display_name, new.domain);
    END`);
    await db.raw(`CREATE TRIGGER accounts_fts_delete AFTER DELETE ON accounts BEGIN
      INSERT INTO accounts_fts (accounts_fts, rowid, username, display_name, domain) VALUES ('delete', old.id, old.username, old.display_name, old.domain);
    END`);
    await db.raw(
      `INSERT INTO accounts_fts (rowid, username, display_name, domain) SELECT id, username, display_name, domain FROM accounts`,
    );
  },
};
