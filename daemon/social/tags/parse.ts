/** Hashtags in status text: `#name` (letters, digits, underscore; not all digits), as Mastodon finds them. */
const HASHTAG = /(?:^|[^\p{L}\p{N}_/&#])#([\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*)/gu;
const TAG_NAME = /^[\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*$/u;
const MAX_TAG_NAME = 100;

export function parseHashtags(text: string): string[] {
  const seen = new Map<string, string>();
  for (const match of text.matchAll(HASHTAG)) {
    const name = match[1].slice(0, MAX_TAG_NAME);
    if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  }
  return [...seen.values()];
}

export function normalizeTag(name: string): string {
  return name.replace(/^#/, '').toLowerCase();
}

/**
 * The names of a peer's `Hashtag` tags (`#name` or `name`), valid ones only, once each, at most
 * `max`: Mastodon indexes a remote post's hashtags from these, not from its HTML.
 */
export function hashtagNames(names: readonly string[], max = 30): string[] {
  const seen = new Map<string, string>();
  for (const raw of names) {
    const name = raw.replace(/^#/, '');
    if (name.length > MAX_TAG_NAME || !TAG_NAME.test(name) || seen.has(name.toLowerCase())) continue;
    seen.set(name.toLowerCase(), name);
    if (seen.size === max) break;
  }
  return [...seen.values()];
}
