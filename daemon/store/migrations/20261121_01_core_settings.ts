import type { Migration } from './index.js';

/** Small values the box keeps across restarts (generated secrets, instance keys, flags). */
export const m20261121_01_core_settings: Migration = {
  name: '20261121_01_core_settings',
  async up(db) {
    await db.schema.createTable('settings', (table) => {
      table.string('key').primary();
      table.text('value').notNullable();
      table.timestamp('updated_at').notNullable().defaultTo(db.fn.now());
    });
  },
  async down(db) {
    await db.schema.dropTable('settings');
  },
};
