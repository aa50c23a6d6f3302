import type { Migration } from './index.js';

/** Follows, follow requests, blocks, mutes (with notifications and expiry), domain blocks, private notes. */
export const m20261122_13_social_relationships: Migration = {
  name: '20261122_13_social_relationships',
  async up(db) {
    for (const table of ['follows', 'follow_requests']) {
      await db.raw(`CREATE TABLE ${table} (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        show_reblogs INTEGER NOT NULL DEFAULT 1,
        notify INTEGER NOT NULL DEFAULT 0,
        languages TEXT,
        uri TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (account_id, target_account_id)
      )`);
      await db.raw(`CREATE INDEX ${table}_target ON ${table} (target_account_id, id)`);
    }
    await db.raw(`CREATE TABLE blocks (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      uri TEXT,
      created_at TEXT NOT NULL,
      UNIQUE (account_id, target_account_id)
    )`);
    await db.raw(`CREATE INDEX blocks_target ON blocks (target_account_id)`);
    await db.raw(`CREATE TABLE mutes (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      hide_notifications INTEGER NOT NULL DEFAULT 1,
      expires_at TEXT,
      created_at TEXT NOT NULL,
      UNIQUE (account_id, target_account_id)
    )`);
    await db.raw(`CREATE INDEX mutes_expiry ON mutes (expires_at) WHERE expires_at IS NOT NULL`);
    await db.raw(`CREATE TABLE account_domain_blocks (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      domain TEXT NOT NULL,
      created_at TEXT NOT NULL,
      UNIQUE (account_id, domain)
    )`);
    await db.raw(`CREATE TABLE account_notes (
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      target_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      comment TEXT NOT NULL,
      PRIMARY KEY (account_id, target_account_id)
    )`);
  },
};
