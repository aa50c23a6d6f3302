import { dialectOf } from '../dialect.js';
import type { Migration } from './index.js';

/**
 * On PostgreSQL the searched vectors become stored columns the server keeps current (generated
 * from the same folded text), and the GIN indexes index them: a match is checked and ranked on the
 * stored vector instead of folding the row's text again. SQLite's FTS5 tables stay as they are.
 */
export const m20261207_20_social_search_vectors: Migration = {
  name: '20261207_20_social_search_vectors',
  async up(db) {
    for (const statement of dialectOf(db).searchVectorColumns()) await db.raw(statement);
  },
};
