/** Media's part in statuses: `media_ids` checked and attached when posting, `media_attachments` when rendering. */
import type { StatusCreateHook } from '../statuses/service.js';
import type { StatusDecorator } from '../statuses/serialize.js';
import { serializeMedia } from './serialize.js';
import type { MediaService } from './service.js';

export function mediaCreateHook(media: MediaService): StatusCreateHook {
  return {
    async prepare(authorId, input) {
      if (!input.media_ids?.length) return null;
      const ids = await media.checkForStatus(authorId, input.media_ids);
      return async (trx, statusId) => {
        await media.repo.attach(trx, statusId, authorId, ids);
      };
    },
  };
}

export function mediaDecorator(media: MediaService): StatusDecorator {
  return async (all) => {
    const rendered = all.filter(({ row }) => row.has_media);
    if (rendered.length === 0) return;
    const rows = await media.repo.ofStatuses(rendered.map(({ row }) => row.id));
    const byStatus = new Map<string, unknown[]>();
    for (const row of rows)
      byStatus.set(row.status_id!, [...(byStatus.get(row.status_id!) ?? []), serializeMedia(row, media.storage)]);
    for (const { row, json } of rendered) json.media_attachments = byStatus.get(row.id) ?? [];
  };
}
