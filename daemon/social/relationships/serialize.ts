/** Relationship JSON. */
import type { RelationshipRow } from './repo.js';

export function serializeRelationship(row: RelationshipRow): Record<string, unknown> {
  const following = Boolean(row.following);
  const muting = Boolean(row.muting);
  return {
    id: row.id,
    following,
    showing_reblogs: following ? Boolean(row.showing_reblogs) : false,
    notifying: following ? Boolean(row.notifying) : false,
    languages: following && row.languages ? JSON.parse(row.languages) : null,
    followed_by: Boolean(row.followed_by),
    blocking: Boolean(row.blocking),
    blocked_by: Boolean(row.blocked_by),
    muting,
    muting_notifications: muting ? Boolean(row.muting_notifications) : false,
    requested: Boolean(row.requested),
    requested_by: Boolean(row.requested_by),
    domain_blocking: Boolean(row.domain_blocking),
    endorsed: Boolean(row.endorsed),
    note: row.note ?? '',
  };
}
