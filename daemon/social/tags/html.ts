/**
 * Hashtags in rendered status HTML become links to the tag's page, as Mastodon renders them;
 * text inside existing links (URLs with #fragments, mentions) is left alone.
 */
const ANCHOR = /(<a\b[^>]*>[\s\S]*?<\/a>)/gi;
const HASHTAG_IN_TEXT = /(^|[^\p{L}\p{N}_/&#])#([\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*)/gu;

export function linkHashtags(html: string, baseUrl: string): string {
  return html
    .split(ANCHOR)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(
            HASHTAG_IN_TEXT,
            (_all, before: string, name: string) =>
              `${before}<a href="${baseUrl}/tags/${encodeURIComponent(name.toLowerCase())}" class="mention hashtag" rel="tag">#<span>${name}</span></a>`,
          ),
    )
    .join('');
}
