/** Hashtags in status text: `#name` (letters, digits, underscore; not all digits), as Mastodon finds them. */
const HASHTAG = /(?:^|[^\p{L}\p{N}_/&#])#([\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*)/gu;

export function parseHashtags(text: string): string[] {
  const seen = new Map<string, string>();
  for (const match of text.matchAll(HASHTAG)) {
    const name = match[1]!.slice(0, 100);
    if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  }
  return [...seen.values()];
}

export function normalizeTag(name: string): string {
  return name.replace(/^#/, '').toLowerCase();
}
