/** Hashtags' part in statuses: stored when posting, `tags` when rendering. */
import type { StatusCreateHook } from '../statuses/service.js';
import type { StatusDecorator } from '../statuses/serialize.js';
import { parseHashtags } from './parse.js';
import { linkHashtags } from './html.js';
import type { TagsRepo } from './repo.js';

export function tagsCreateHook(repo: TagsRepo, baseUrl: string): StatusCreateHook {
  return {
    async prepare(_authorId, _input, text) {
      const names = parseHashtags(text);
      if (names.length === 0) return null;
      return async (trx, statusId) => {
        await repo.tagStatus(trx, statusId, names);
        const rows = await trx.raw<Array<{ content: string }>>(`SELECT content FROM statuses WHERE id = ?`, [statusId]);
        await trx.raw(`UPDATE statuses SET content = ? WHERE id = ?`, [
          linkHashtags(rows[0].content, baseUrl),
          statusId,
        ]);
      };
    },
  };
}

export function tagsDecorator(repo: TagsRepo, baseUrl: string): StatusDecorator {
  return async (all) => {
    const rendered = all.filter(({ row }) => row.has_tags);
    if (rendered.length === 0) return;
    const rows = await repo.ofStatuses(rendered.map(({ row }) => row.id));
    const byStatus = new Map<string, Array<{ name: string; url: string }>>();
    for (const row of rows) {
      const name = row.name.toLowerCase();
      byStatus.set(row.status_id, [
        ...(byStatus.get(row.status_id) ?? []),
        { name, url: `${baseUrl}/tags/${encodeURIComponent(name)}` },
      ]);
    }
    for (const { row, json } of rendered) json.tags = byStatus.get(row.id) ?? [];
  };
}
