/** `filtered` on statuses rendered for a viewer: each of their active filters whose keywords occur. */
import { createHash } from 'node:crypto';
import type { StatusDecorator, ViewerKey } from '../statuses/serialize.js';
import { matchedKeywords, plainText } from './match.js';
import { serializeResult } from './serialize.js';
import type { FiltersService } from './service.js';

export function filtersDecorator(filters: FiltersService): StatusDecorator {
  return async (rendered, viewerId) => {
    if (!viewerId || rendered.length === 0) return;
    const active = (await filters.active(viewerId)).filter(({ keywords }) => keywords.length > 0);
    if (active.length === 0) return;
    for (const { row, json } of rendered) {
      if (json.filtered === undefined || row.account_id === viewerId || row.reblog_of_id) continue;
      const text = [row.spoiler_text, plainText(row.content)].join('\n');
      json.filtered = active
        .map(({ filter, keywords }) => ({ filter, matches: matchedKeywords(text, keywords) }))
        .filter(({ matches }) => matches.length > 0)
        .map(({ filter, matches }) => serializeResult(filter, matches));
    }
  };
}

/** What `filtered` is made from for a viewer: their active keyword filters (none: the empty key). */
export function filtersViewerKey(filters: FiltersService): ViewerKey {
  return async (viewerId) => {
    const active = (await filters.active(viewerId)).filter(({ keywords }) => keywords.length > 0);
    return active.length === 0 ? '' : createHash('sha256').update(JSON.stringify(active)).digest('base64url');
  };
}
