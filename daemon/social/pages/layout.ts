/** The page shell: head (title, description, Open Graph and Twitter card, alternates), landmarks, footer. */
import { html, type SafeHtml } from './html.js';

export const STYLESHEET_PATH = '/pages.css';

export interface PageMeta {
  title: string;
  description: string;
  /** The page's own address (canonical and og:url). */
  url: string;
  image?: string;
  /** The ActivityPub document of the page, for `rel=alternate`. */
  activityJson?: string;
  rss?: string;
  noindex?: boolean;
  ogType?: 'website' | 'profile' | 'article';
}

export function layout(meta: PageMeta, siteTitle: string, main: SafeHtml): string {
  return (
    '<!doctype html>\n' +
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>${meta.title}</title>
        <meta name="description" content="${meta.description}" />
        ${meta.noindex ? html`<meta name="robots" content="noindex, noarchive" />` : ''}
        <link rel="canonical" href="${meta.url}" />
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
        ${meta.activityJson ? html`<link rel="alternate" type="application/activity+json" href="${meta.activityJson}" />` : ''}
        ${meta.rss ? html`<link rel="alternate" type="application/rss+xml" title="RSS" href="${meta.rss}" />` : ''}
        <meta property="og:site_name" content="${siteTitle}" />
        <meta property="og:type" content="${meta.ogType ?? 'website'}" />
        <meta property="og:title" content="${meta.title}" />
        <meta property="og:description" content="${meta.description}" />
        <meta property="og:url" content="${meta.url}" />
        ${meta.image ? html`<meta property="og:image" content="${meta.image}" />` : ''}
        <meta name="twitter:card" content="summary" />
        <meta name="twitter:title" content="${meta.title}" />
        <meta name="twitter:description" content="${meta.description}" />
        ${meta.image ? html`<meta name="twitter:image" content="${meta.image}" />` : ''}
      </head>
      <body>
        <header class="site"><a href="/" class="site-name">${siteTitle}</a></header>
        <main id="main">${main}</main>
        <footer class="site"><p>Powered by Nestbox, a Mastodon-compatible home server.</p></footer>
      </body>
    </html> `.text
  );
}

/** Plain text of sanitised HTML, shortened, for descriptions and feed titles. */
export function plainText(markup: string, max = 200): string {
  const text = markup
    .replace(/<br\s*\/?>|<\/p>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
