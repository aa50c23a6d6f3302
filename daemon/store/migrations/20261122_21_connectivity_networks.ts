import type { Migration } from './index.js';

/**
 * Saved Wi-Fi networks. The SSID is a BLOB (up to 32 bytes, not necessarily UTF-8); the
 * passphrase is kept only to hand to the coprocessor and is never returned by any API.
 */
export const m20261122_21_connectivity_networks: Migration = {
  name: '20261122_21_connectivity_networks',
  async up(db) {
    await db.schema.createTable('connectivity_networks', (table) => {
      table.increments('id').primary();
      table.binary('ssid').notNullable().unique();
      table.text('passphrase').notNullable().defaultTo('');
      table.boolean('hidden').notNullable().defaultTo(false);
      table.integer('priority').notNullable();
      table.integer('auth_failures').notNullable().defaultTo(0);
      table.boolean('password_refused').notNullable().defaultTo(false);
      table.timestamp('last_success_at').nullable();
      table.timestamp('created_at').notNullable().defaultTo(db.fn.now());
      table.timestamp('updated_at').notNullable().defaultTo(db.fn.now());
    });
  },
  async down(db) {
    await db.schema.dropTable('connectivity_networks');
  },
};
