/** Custom emoji (`:shortcode:`) as images in text the pages show. */
import { escapeHtml } from '../statuses/html.js';
import { trusted, type SafeHtml } from './html.js';
import type { PageEmoji } from './shapes.js';

/** A tag (left as it is: a shortcode inside a link's address is not an emoji), or a shortcode. */
const TAG_OR_SHORTCODE = /(<[^>]*>)|:([a-zA-Z0-9_]{2,}):/g;

/** `markup` is HTML that is already safe (escaped text or sanitised content). */
export function withEmoji(markup: string, emojis: readonly PageEmoji[]): SafeHtml {
  if (emojis.length === 0) return trusted(markup);
  const urls = new Map(emojis.map((emoji) => [emoji.shortcode, emoji.url]));
  return trusted(
    markup.replace(TAG_OR_SHORTCODE, (match, tag: string | undefined, code: string | undefined) => {
      const url = tag === undefined && code !== undefined ? urls.get(code) : undefined;
      return url
        ? `<img class="emoji" src="${escapeHtml(url)}" alt=":${code}:" title=":${code}:" width="20" height="20">`
        : match;
    }),
  );
}

/** A display name (plain text) with its emoji; the username when it is empty. */
export function displayName(account: { display_name: string; username: string; emojis: readonly PageEmoji[] }) {
  return withEmoji(escapeHtml(account.display_name || account.username), account.emojis);
}
