import type { Migration } from './index.js';

/**
 * Deliveries may be sent by the instance actor (no account: `sender_account_id` NULL), as a
 * forwarded report's Flag is, so the reported server never learns who reported. SQLite cannot
 * drop a NOT NULL in place: the queue table is rebuilt with its rows.
 */
export const m20261126_65_social_instance_actor_deliveries: Migration = {
  name: '20261126_65_social_instance_actor_deliveries',
  async up(db) {
    await db.raw(`CREATE TABLE federation_deliveries_rebuilt (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      inbox TEXT NOT NULL,
      domain TEXT NOT NULL,
      sender_account_id INTEGER REFERENCES accounts(id) ON DELETE CASCADE,
      body TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER NOT NULL,
      last_error TEXT,
      created_at INTEGER NOT NULL
    )`);
    await db.raw(`INSERT INTO federation_deliveries_rebuilt
      (id, inbox, domain, sender_account_id, body, attempts, next_attempt_at, last_error, created_at)
      SELECT id, inbox, domain, sender_account_id, body, attempts, next_attempt_at, last_error, created_at
      FROM federation_deliveries`);
    await db.raw(`DROP TABLE federation_deliveries`);
    await db.raw(`ALTER TABLE federation_deliveries_rebuilt RENAME TO federation_deliveries`);
    await db.raw(`CREATE INDEX federation_deliveries_due ON federation_deliveries (next_attempt_at, id)`);
  },
};
