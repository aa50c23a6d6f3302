/**
 * A peer's custom emoji: the `Emoji` entries of a Note's or an actor's `tag`
 * ({"type": "Emoji", "name": ":code:", "icon": {"url": …}}), their image URLs under the address
 * policy. Malformed entries are skipped. Outgoing documents carry ours the same way.
 */
import type { StoredEmoji } from '../../statuses/emojis.js';
import { checkUrl, type AddressPolicy } from '../net/address-policy.js';
import { asArray, isObject, str, type Json } from './ld.js';
import { imageObject } from './media-types.js';

const NAME = /^:([a-zA-Z0-9_]{2,64}):$/;
const MAX_TAGS = 100;
const MAX_URL = 2000;

export function parseEmojiTags(tag: unknown, policy: AddressPolicy): Map<string, StoredEmoji> {
  const out = new Map<string, StoredEmoji>();
  for (const item of asArray(tag).slice(0, MAX_TAGS)) {
    if (!isObject(item) || item.type !== 'Emoji') continue;
    const shortcode = NAME.exec(str(item.name) ?? '')?.[1];
    const icon = asArray(item.icon).find(isObject);
    const raw = str(icon?.url) ?? (isObject(icon?.url) ? str(icon.url.href) : null);
    if (!shortcode || !raw || raw.length > MAX_URL || out.has(shortcode)) continue;
    try {
      const url = checkUrl(policy, raw).toString();
      out.set(shortcode, { shortcode, url, static_url: url });
    } catch {
      continue;
    }
  }
  return out;
}

/** Our emoji as `Emoji` tags. */
export function emojiTags(stored: readonly StoredEmoji[]): Json[] {
  return stored.map((emoji) => ({
    id: emoji.url,
    type: 'Emoji',
    name: `:${emoji.shortcode}:`,
    icon: imageObject(emoji.url),
  }));
}
