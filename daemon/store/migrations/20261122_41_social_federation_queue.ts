import type { Migration } from './index.js';

/**
 * Federation: the durable delivery queue (one row per activity and inbox, retried with backoff),
 * the peers' availability, and what remote actors carry beyond the accounts table (their key id,
 * collections, aliases and a move). Times of the queue are epoch milliseconds.
 */
export const m20261122_41_social_federation_queue: Migration = {
  name: '20261122_41_social_federation_queue',
  async up(db) {
    await db.raw(`CREATE TABLE federation_deliveries (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      inbox TEXT NOT NULL,
      domain TEXT NOT NULL,
      sender_account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      body TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER NOT NULL,
      last_error TEXT,
      created_at INTEGER NOT NULL
    )`);
    await db.raw(`CREATE INDEX federation_deliveries_due ON federation_deliveries (next_attempt_at, id)`);
    await db.raw(`CREATE TABLE federation_domains (
      domain TEXT PRIMARY KEY,
      unavailable_at TEXT,
      last_success_at TEXT,
      last_failure_at TEXT
    )`);
    await db.raw(`CREATE TABLE federation_actors (
      account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      key_id TEXT,
      type TEXT NOT NULL DEFAULT 'Person',
      following_url TEXT,
      featured_url TEXT,
      also_known_as TEXT NOT NULL DEFAULT '[]',
      moved_to_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
      fetched_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE INDEX federation_actors_key ON federation_actors (key_id)`);
    /** Other accounts a local account says it also is (a move to it is accepted from them). */
    await db.raw(`CREATE TABLE federation_local_aliases (
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      uri TEXT NOT NULL,
      PRIMARY KEY (account_id, uri)
    )`);
    /** Local accounts that moved away (Move sent), and to where. */
    await db.raw(`CREATE TABLE federation_local_moves (
      account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      target_uri TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`);
  },
};
