/** The box's own custom emoji, looked up by the shortcodes a text uses (statuses, profiles). */
import type { Reader } from '../store/reader.js';
import { shortcodesIn, usedEmojis, type StoredEmoji } from '../statuses/emojis.js';

/** The enabled local emoji `texts` use, as stored JSON for a status or an account. */
export async function localEmojisIn(reader: Reader, ...texts: string[]): Promise<string> {
  const shortcodes = shortcodesIn(...texts);
  if (shortcodes.length === 0) return '[]';
  const rows = await reader.all<StoredEmoji>(
    `SELECT shortcode, image_url AS url, static_url FROM custom_emojis
    WHERE domain IS NULL AND disabled = 0 AND shortcode IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(shortcodes)],
  );
  return JSON.stringify(usedEmojis(new Map(rows.map((row) => [row.shortcode, row])), ...texts));
}
