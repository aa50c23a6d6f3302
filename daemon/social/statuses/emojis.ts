/**
 * Custom emoji in statuses and accounts: the `:shortcode:`s a text uses, each with its image.
 * Kept on the row as JSON (`emojis`) and rendered as Mastodon's CustomEmoji list. Only emoji the
 * text actually uses are kept, as Mastodon shows them.
 */
export interface StoredEmoji {
  shortcode: string;
  url: string;
  static_url: string;
}

export interface EmojiJson {
  shortcode: string;
  url: string;
  static_url: string;
  visible_in_picker: boolean;
}

const SHORTCODE = /:([a-zA-Z0-9_]{2,64}):/g;
const MAX_EMOJIS = 50;

/** The shortcodes `texts` use, in order of first use. */
export function shortcodesIn(...texts: string[]): string[] {
  const seen = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(SHORTCODE)) seen.add(match[1]);
  return [...seen].slice(0, MAX_EMOJIS);
}

/** Of `available` (by shortcode), those `texts` use. */
export function usedEmojis(available: ReadonlyMap<string, StoredEmoji>, ...texts: string[]): StoredEmoji[] {
  return shortcodesIn(...texts)
    .map((code) => available.get(code))
    .filter((emoji): emoji is StoredEmoji => emoji !== undefined);
}

export function renderEmojis(stored: string | null | undefined): EmojiJson[] {
  if (!stored || stored === '[]') return [];
  try {
    return (JSON.parse(stored) as StoredEmoji[]).map((emoji) => ({
      shortcode: emoji.shortcode,
      url: emoji.url,
      static_url: emoji.static_url,
      visible_in_picker: false,
    }));
  } catch {
    return [];
  }
}
