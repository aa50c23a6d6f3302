/**
 * PostgreSQL's first migration: the schema SQLite reaches through every migration up to
 * `20261205_66_social_conversations_in_service`, in one step. Migrations after it are written once
 * for both engines (`../index.ts`). Ids are bigints (snowflakes where SQLite's were, identities
 * elsewhere, so a move can copy them and set the sequences after), booleans are booleans, JSON
 * kept as JSON is jsonb (a delivery's body stays text: it is sent as signed), text orders as in C.
 */
import type { Migration } from '../index.js';
import { ACCOUNTS_TABLES } from './accounts.js';
import { FEDERATION_TABLES } from './federation.js';
import { SOCIAL_TABLES } from './social.js';
import { STATUSES_TABLES } from './statuses.js';
import { SEARCH_INDEXES, TRIGGERS } from './triggers.js';

export const POSTGRES_BASELINE_NAME = '20261205_99_postgres_baseline';

export const postgresBaseline: Migration = {
  name: POSTGRES_BASELINE_NAME,
  async up(db) {
    const statements = [
      ...ACCOUNTS_TABLES,
      ...STATUSES_TABLES,
      ...SOCIAL_TABLES,
      ...FEDERATION_TABLES,
      ...SEARCH_INDEXES,
      ...TRIGGERS,
    ];
    for (const statement of statements) await db.raw(statement);
  },
};
