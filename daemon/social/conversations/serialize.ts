/** The Conversation entity (Mastodon 4.5): its other accounts and its newest status. */
import type { AccountJson } from '../accounts/serialize.js';
import type { StatusJson } from '../statuses/serialize.js';
import type { ConversationRow } from './repo.js';

export function serializeConversation(
  row: ConversationRow,
  accounts: Map<string, AccountJson>,
  statuses: Map<string, StatusJson>,
): Record<string, unknown> | null {
  const lastStatus = row.last_status_id ? statuses.get(row.last_status_id) : undefined;
  if (!lastStatus) return null;
  const ids = JSON.parse(row.participant_ids) as string[];
  return {
    id: row.id,
    unread: Boolean(row.unread),
    accounts: ids.map((id) => accounts.get(id)).filter(Boolean),
    last_status: lastStatus,
  };
}
