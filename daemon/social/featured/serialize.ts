/** The FeaturedTag entity (Mastodon 4.5): its count a string, its last use a date. */
import type { FeaturedTagRow } from './repo.js';

export function serializeFeaturedTag(row: FeaturedTagRow, accountUrl: string): Record<string, unknown> {
  const name = row.name;
  return {
    id: row.id,
    name,
    url: `${accountUrl}/tagged/${encodeURIComponent(name.toLowerCase())}`,
    statuses_count: String(row.statuses_count),
    last_status_at: row.last_status_at ? row.last_status_at.slice(0, 10) : null,
  };
}
