/** The ScheduledStatus entity (Mastodon 4.5). */
import type { ScheduledRow } from './repo.js';
import type { ScheduledParams } from './service.js';

export function serializeScheduled(row: ScheduledRow, media: unknown[]): Record<string, unknown> {
  const params = JSON.parse(row.params) as ScheduledParams;
  return {
    id: row.id,
    scheduled_at: row.scheduled_at,
    params: { ...params, poll: params.poll ?? null, scheduled_at: null, idempotency: null, with_rate_limit: false },
    media_attachments: media,
  };
}
