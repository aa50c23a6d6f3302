/** Filter (v2), FilterKeyword and FilterResult JSON (Mastodon 4.5). */
import type { FilterRow, KeywordRow } from './repo.js';

export function serializeKeyword(row: KeywordRow): Record<string, unknown> {
  return { id: row.id, keyword: row.keyword, whole_word: Boolean(row.whole_word) };
}

export function serializeFilter(row: FilterRow, keywords: KeywordRow[]): Record<string, unknown> {
  return {
    id: row.id,
    title: row.title,
    context: JSON.parse(row.context) as string[],
    expires_at: row.expires_at,
    filter_action: row.action,
    keywords: keywords.map(serializeKeyword),
    statuses: [],
  };
}

/** Inside a status's `filtered`: the filter without its keywords, as Mastodon nests it. */
export function serializeResult(row: FilterRow, matches: string[]): Record<string, unknown> {
  return {
    filter: {
      id: row.id,
      title: row.title,
      context: JSON.parse(row.context) as string[],
      expires_at: row.expires_at,
      filter_action: row.action,
    },
    keyword_matches: matches,
    status_matches: null,
  };
}
