/** RSS 2.0 of public posts: channel title, link and description; items with a permalink guid, an RFC 822 date and escaped HTML. */
import { escapeHtml } from '../statuses/html.js';
import { plainText } from './layout.js';
import type { PageStatus } from './shapes.js';
import { statusLink } from './status-view.js';

export interface FeedChannel {
  title: string;
  link: string;
  description: string;
  /** The feed's own address (atom:link rel=self, which validators ask for). */
  self: string;
  image?: string;
}

export function rssFeed(channel: FeedChannel, statuses: readonly PageStatus[]): string {
  const items = statuses.map((status) => {
    const link = statusLink(status);
    const title = status.spoiler_text || plainText(status.content, 80) || `Post by @${status.account.acct}`;
    const media = status.media_attachments
      .map((item) => `<p><a href="${escapeHtml(item.url)}">${escapeHtml(item.description || item.type)}</a></p>`)
      .join('');
    const description = status.spoiler_text ? `<p>${escapeHtml(status.spoiler_text)}</p>` : status.content + media;
    return `<item>
<title>${escapeHtml(title)}</title>
<link>${escapeHtml(link)}</link>
<guid isPermaLink="true">${escapeHtml(link)}</guid>
<pubDate>${new Date(status.created_at).toUTCString()}</pubDate>
<description>${escapeHtml(description)}</description>
</item>`;
  });
  const lastBuild = statuses.length
    ? `<lastBuildDate>${new Date(statuses[0].created_at).toUTCString()}</lastBuildDate>\n`
    : '';
  const image = channel.image
    ? `<image><url>${escapeHtml(channel.image)}</url><title>${escapeHtml(channel.title)}</title><link>${escapeHtml(channel.link)}</link></image>\n`
    : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>${escapeHtml(channel.title)}</title>
<link>${escapeHtml(channel.link)}</link>
<description>${escapeHtml(channel.description)}</description>
<atom:link href="${escapeHtml(channel.self)}" rel="self" type="application/rss+xml"/>
<generator>Nestbox</generator>
${lastBuild}${image}${items.join('\n')}
</channel>
</rss>
`;
}
