/** The rich Tag object: name, url, a week of daily use (strings, newest day first), and whether the viewer follows it. */
import type { TagRow } from './repo.js';
import type { TagView } from './service.js';

export function serializeTag(
  tag: Pick<TagRow, 'id' | 'name'>,
  baseUrl: string,
  history: Array<{ day: string; uses: number; accounts: number }>,
  nowMs: number,
  following = false,
  featuring = false,
): Record<string, unknown> {
  const byDay = new Map(history.map((h) => [h.day, h]));
  const days = [];
  for (let i = 0; i < 7; i++) {
    const date = new Date(nowMs - i * 86400_000).toISOString().slice(0, 10);
    const entry = byDay.get(date);
    days.push({
      day: String(Date.parse(`${date}T00:00:00Z`) / 1000),
      uses: String(entry?.uses ?? 0),
      accounts: String(entry?.accounts ?? 0),
    });
  }
  const name = tag.name.toLowerCase();
  // A hashtag nobody used yet has no row: Mastodon gives it an empty id.
  return {
    id: tag.id > 0 ? String(tag.id) : '',
    name,
    url: `${baseUrl}/tags/${encodeURIComponent(name)}`,
    history: days,
    following,
    featuring,
  };
}

/** A tag as the tags service sees it for a viewer. */
export function serializeTagView(view: TagView, baseUrl: string): Record<string, unknown> {
  return serializeTag(view.tag, baseUrl, view.history, view.at, view.following, view.featuring);
}
