import type { Migration } from './index.js';

/**
 * Polls (Mastodon's): at most one per status, its options and their tallies kept on the poll row
 * (a peer's poll is counted by its server; ours by our votes), and the votes cast here or, for our
 * polls, received from peers. A poll's status renders from it: any change moves the status's
 * render version.
 */
export const m20261122_58_social_polls: Migration = {
  name: '20261122_58_social_polls',
  async up(db) {
    await db.raw(`CREATE TABLE polls (
      id INTEGER PRIMARY KEY,
      status_id INTEGER NOT NULL UNIQUE REFERENCES statuses(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      options TEXT NOT NULL,
      tallies TEXT NOT NULL,
      multiple INTEGER NOT NULL DEFAULT 0,
      hide_totals INTEGER NOT NULL DEFAULT 0,
      votes_count INTEGER NOT NULL DEFAULT 0,
      voters_count INTEGER,
      expires_at TEXT,
      -- Set once the ended poll's voters (and author) were notified.
      ended_notified INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`);
    await db.raw(`CREATE INDEX polls_ending ON polls (expires_at) WHERE ended_notified = 0 AND expires_at IS NOT NULL`);
    await db.raw(`CREATE TABLE poll_votes (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      poll_id INTEGER NOT NULL REFERENCES polls(id) ON DELETE CASCADE,
      account_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      choice INTEGER NOT NULL,
      -- A peer's vote: the id of the Note that carried it.
      uri TEXT UNIQUE,
      created_at TEXT NOT NULL,
      UNIQUE (poll_id, account_id, choice)
    )`);
    await db.raw(`CREATE INDEX poll_votes_account ON poll_votes (account_id, poll_id)`);
    const bump = (row: 'new' | 'old') => `UPDATE statuses SET version = version + 1 WHERE id = ${row}.status_id;`;
    await db.raw(`CREATE TRIGGER polls_render_insert AFTER INSERT ON polls BEGIN ${bump('new')} END`);
    await db.raw(`CREATE TRIGGER polls_render_update AFTER UPDATE ON polls BEGIN ${bump('new')} END`);
    await db.raw(`CREATE TRIGGER polls_render_delete AFTER DELETE ON polls BEGIN ${bump('old')} END`);
  },
};
