/** Conversations rendered for their viewer (the list, `read`, and the `direct` stream's events). */
import type { StatusRenderer } from '../statuses/serialize.js';
import type { ConversationRow } from './repo.js';
import { serializeConversation } from './serialize.js';

/** Conversations as JSON for `viewer`, in order; those with no message left are left out. */
export async function renderConversations(
  renderer: StatusRenderer,
  viewer: string,
  rows: readonly ConversationRow[],
): Promise<Array<Record<string, unknown>>> {
  const statusIds = rows.flatMap((row) => (row.last_status_id ? [row.last_status_id] : []));
  const { statuses, accounts } = await renderer.renderWithAccounts(
    statusIds,
    viewer,
    rows.flatMap((row) => JSON.parse(row.participant_ids) as string[]),
  );
  return rows
    .map((row) => serializeConversation(row, accounts, statuses))
    .filter((json): json is Record<string, unknown> => json !== null);
}
