/** Hashtags' part in statuses: stored when posting and editing, `tags` when rendering. */
import type { Knex } from 'knex';
import type { StatusCreateHook, StatusEditHook } from '../statuses/service.js';
import type { StatusDecorator } from '../statuses/serialize.js';
import { parseHashtags } from './parse.js';
import { linkHashtags } from './html.js';
import type { TagsRepo } from './repo.js';

/** An edited status's hashtags become `names` (replacing those it had) and link in its stored content. */
async function retagAndLink(
  trx: Knex,
  repo: TagsRepo,
  baseUrl: string,
  statusId: string,
  names: readonly string[],
): Promise<void> {
  await repo.retagStatus(trx, statusId, names);
  const { content } = await repo.statusText(trx, statusId);
  const linked = linkHashtags(content, baseUrl);
  if (linked !== content) await repo.linkStatusContent(trx, statusId, linked);
}

/** A new status's hashtags: linked in the HTML it is written with, then stored with it. */
export function tagsCreateHook(repo: TagsRepo, baseUrl: string): StatusCreateHook {
  return {
    async prepare(_authorId, _input, text) {
      const names = parseHashtags(text);
      if (names.length === 0) return null;
      return (trx, statusId) => repo.tagStatus(trx, statusId, names);
    },
    content: (html, text) => (parseHashtags(text).length === 0 ? html : linkHashtags(html, baseUrl)),
  };
}

/** Runs after the edited text is stored: its hashtags replace the old ones, linked as when posting. */
export function tagsEditHook(repo: TagsRepo, baseUrl: string): StatusEditHook {
  return {
    async prepare(_authorId, statusId) {
      return async (trx) => {
        const { text } = await repo.statusText(trx, statusId);
        await retagAndLink(trx, repo, baseUrl, statusId, parseHashtags(text));
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
