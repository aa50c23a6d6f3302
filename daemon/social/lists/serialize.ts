/** The List entity (Mastodon 4.5). */
import type { ListRow } from './repo.js';

export interface ListJson {
  id: string;
  title: string;
  replies_policy: string;
  exclusive: boolean;
}

export function serializeList(row: ListRow): ListJson {
  return { id: row.id, title: row.title, replies_policy: row.replies_policy, exclusive: Boolean(row.exclusive) };
}
