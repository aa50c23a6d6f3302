import type { Migration } from './index.js';

/**
 * Render versions: a number on each account and status that changes whenever anything its JSON is
 * made from changes, kept by triggers so every writer (the API, federation, the admin tool, another
 * process) bumps it. Readers keep rendered JSON by (id, version) and fetch a row only when its
 * version moved. A status renders from its row, its mentions, its media and its hashtags.
 */
export const m20261122_51_social_render_versions: Migration = {
  name: '20261122_51_social_render_versions',
  async up(db) {
    await db.raw(`ALTER TABLE accounts ADD COLUMN version INTEGER NOT NULL DEFAULT 0`);
    await db.raw(`ALTER TABLE statuses ADD COLUMN version INTEGER NOT NULL DEFAULT 0`);
    // The WHEN guard keeps the triggers' own version updates from counting again.
    await db.raw(`CREATE TRIGGER accounts_render_version AFTER UPDATE ON accounts WHEN new.version = old.version BEGIN
      UPDATE accounts SET version = old.version + 1 WHERE id = new.id;
    END`);
    await db.raw(`CREATE TRIGGER statuses_render_version AFTER UPDATE ON statuses WHEN new.version = old.version BEGIN
      UPDATE statuses SET version = old.version + 1 WHERE id = new.id;
    END`);
    const bump = (id: string) => `UPDATE statuses SET version = version + 1 WHERE id = ${id};`;
    for (const table of ['mentions', 'status_tags', 'media_attachments']) {
      await db.raw(`CREATE TRIGGER ${table}_render_insert AFTER INSERT ON ${table} BEGIN ${bump('new.status_id')} END`);
      await db.raw(`CREATE TRIGGER ${table}_render_delete AFTER DELETE ON ${table} BEGIN ${bump('old.status_id')} END`);
    }
    // Media change after attaching (processing done, description, focus) and move between statuses.
    await db.raw(`CREATE TRIGGER media_attachments_render_update AFTER UPDATE ON media_attachments BEGIN
      ${bump('new.status_id')} ${bump('old.status_id')}
    END`);
  },
};
