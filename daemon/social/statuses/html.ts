/** Plain text to the small HTML subset Mastodon renders: paragraphs, line breaks, links, mentions. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const URL_PATTERN = /https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]]/g;

export interface MentionLink {
  match: string;
  url: string;
  username: string;
}

/** Renders text; `mentions` are replaced by h-card links, bare URLs by links. */
export function textToHtml(text: string, mentions: MentionLink[] = []): string {
  const paragraphs = text
    .trim()
    .split(/\n{2,}/)
    .filter((p) => p.length > 0);
  return paragraphs.map((paragraph) => `<p>${renderInline(paragraph, mentions).replace(/\n/g, '<br />')}</p>`).join('');
}

function renderInline(text: string, mentions: MentionLink[]): string {
  let html = escapeHtml(text).replace(
    URL_PATTERN,
    (url) => `<a href="${url}" rel="nofollow noopener" target="_blank">${url}</a>`,
  );
  for (const mention of mentions) {
    const pattern = new RegExp(`(^|[^\\w/])${escapeRegExp(escapeHtml(mention.match))}(?![\\w@.-]*\\w)`, 'gi');
    html = html.replace(
      pattern,
      (_all, before: string) =>
        `${before}<span class="h-card" translate="no"><a href="${escapeHtml(mention.url)}" class="u-url mention">@<span>${escapeHtml(mention.username)}</span></a></span>`,
    );
  }
  return html;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
