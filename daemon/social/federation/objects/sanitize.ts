/** Remote HTML (notes, profiles) reduced to the small subset Mastodon keeps, links made safe. */
import type sanitizeHtmlType from 'sanitize-html';
import { onFirstUse } from '../../../lib/on-first-use.js';

const sanitizer = onFirstUse<typeof sanitizeHtmlType>('sanitize-html');

const OPTIONS: sanitizeHtmlType.IOptions = {
  allowedTags: [
    'p',
    'br',
    'span',
    'a',
    'del',
    'pre',
    'code',
    'em',
    'strong',
    'b',
    'i',
    'u',
    'ul',
    'ol',
    'li',
    'blockquote',
  ],
  allowedAttributes: {
    a: ['href', 'rel', 'class', 'translate'],
    span: ['class', 'translate'],
    ol: ['start', 'reversed'],
    li: ['value'],
  },
  allowedClasses: { a: ['mention', 'hashtag', 'u-url', 'status-link'], span: ['h-card', 'invisible', 'ellipsis'] },
  allowedSchemes: ['http', 'https'],
  transformTags: {
    a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, rel: 'nofollow noopener', target: '_blank' } }),
  },
};

export function sanitizeRemoteHtml(html: string): string {
  return sanitizer()(html, {
    ...OPTIONS,
    allowedAttributes: {
      ...OPTIONS.allowedAttributes,
      a: [...(OPTIONS.allowedAttributes as Record<string, string[]>).a, 'target'],
    },
  });
}

/** Plain text of remote HTML (for the `text` column of remote statuses). */
export function htmlToText(html: string): string {
  return sanitizer()(html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/p>\s*<p>/gi, '\n\n'), {
    allowedTags: [],
    allowedAttributes: {},
  }).trim();
}
