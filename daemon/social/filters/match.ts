/**
 * Keyword matching as Mastodon does it: case-insensitive; whole_word puts a word boundary at each
 * end that is a word character (so "#tag" or "co-op" still match as written).
 */
export function keywordPattern(
  keywords: ReadonlyArray<{ keyword: string; whole_word: number | boolean }>,
): RegExp | null {
  if (keywords.length === 0) return null;
  const parts = keywords.map(({ keyword, whole_word }) => {
    const escaped = keyword.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (!whole_word) return escaped;
    const start = /^[\p{L}\p{N}_]/u.test(keyword) ? '(?<![\\p{L}\\p{N}_])' : '';
    const end = /[\p{L}\p{N}_]$/u.test(keyword) ? '(?![\\p{L}\\p{N}_])' : '';
    return `${start}${escaped}${end}`;
  });
  return new RegExp(parts.join('|'), 'giu');
}

/** The keywords of `keywords` found in `text`, each once, as written in the filter. */
export function matchedKeywords(
  text: string,
  keywords: ReadonlyArray<{ keyword: string; whole_word: number | boolean }>,
): string[] {
  const out: string[] = [];
  for (const keyword of keywords) {
    const pattern = keywordPattern([keyword]);
    if (pattern && pattern.test(text)) out.push(keyword.keyword);
  }
  return out;
}

/** Status HTML to the text filters look at. */
export function plainText(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
