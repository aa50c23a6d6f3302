import { dialectOf } from '../dialect.js';
import type { Migration } from './index.js';

/**
 * A status's render version moves once per transaction on PostgreSQL (`dialect.renderVersionOnce`):
 * posting with mentions and hashtags no longer writes the new status row again for each of them.
 */
export const m20261209_30_social_render_version_once: Migration = {
  name: '20261209_30_social_render_version_once',
  async up(db) {
    for (const statement of dialectOf(db).renderVersionOnce) await db.raw(statement);
  },
};
