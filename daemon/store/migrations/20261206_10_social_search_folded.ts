import { dialectOf } from '../dialect.js';
import type { Migration } from './index.js';

/**
 * Full-text search on PostgreSQL splits and folds words as SQLite's FTS5 tokenizer does
 * (store/search-fold.ts): the baseline's two GIN indexes are made again on the folded text.
 * SQLite's FTS5 tables stay as they are.
 */
export const m20261206_10_social_search_folded: Migration = {
  name: '20261206_10_social_search_folded',
  async up(db) {
    for (const statement of dialectOf(db).textSearchSchema()) await db.raw(statement);
  },
};
