import type { Migration } from './index.js';

/** The custom emoji a status or an account's name and bio use, with their images (JSON). */
export const m20261122_56_social_emojis_in_use: Migration = {
  name: '20261122_56_social_emojis_in_use',
  async up(db) {
    await db.raw(`ALTER TABLE statuses ADD COLUMN emojis TEXT NOT NULL DEFAULT '[]'`);
    await db.raw(`ALTER TABLE accounts ADD COLUMN emojis TEXT NOT NULL DEFAULT '[]'`);
  },
};
