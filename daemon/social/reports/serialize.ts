/** The fields Mastodon's Report and Admin::Report share. */
import type { ReportRow } from './repo.js';

export function reportFields(row: ReportRow): Record<string, unknown> {
  return {
    id: row.id,
    action_taken: row.action_taken_at !== null,
    action_taken_at: row.action_taken_at,
    category: row.category,
    comment: row.comment,
    forwarded: Boolean(row.forwarded),
    created_at: row.created_at,
  };
}
