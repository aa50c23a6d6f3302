import type { Migration } from './index.js';

/**
 * What ends with a follow (its endorsement; list membership once no follow or request remains)
 * moves from triggers into the relationships service, the one place follows and requests end, so
 * the rule is visible where the follow ends.
 */
export const m20261122_64_social_follow_endings_in_service: Migration = {
  name: '20261122_64_social_follow_endings_in_service',
  async up(db) {
    for (const trigger of [
      'follows_end_list_membership',
      'follow_requests_end_list_membership',
      'account_pins_unfollow',
    ]) {
      await db.raw(`DROP TRIGGER IF EXISTS ${trigger}`);
    }
  },
};
