import type { Migration } from './index.js';

/**
 * A direct status reaching its participants' conversation lists moves from a trigger on mentions
 * into the statuses service: with peers' statuses stored through it too, it is the one place
 * mentions are written (statuses/writes.ts, the rule beside the write).
 */
export const m20261205_66_social_conversations_in_service: Migration = {
  name: '20261205_66_social_conversations_in_service',
  async up(db) {
    await db.raw(`DROP TRIGGER IF EXISTS account_conversations_direct`);
  },
};
