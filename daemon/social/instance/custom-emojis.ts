/** The box's own custom emoji, looked up by the shortcodes a text uses (statuses, profiles). */
import { shortcodesIn, usedEmojis } from '../statuses/emojis.js';
import type { InstanceRepo } from './repo.js';

/** The enabled local emoji `texts` use, as stored JSON for a status or an account. */
export async function localEmojisIn(emojis: Pick<InstanceRepo, 'enabledEmojis'>, ...texts: string[]): Promise<string> {
  const shortcodes = shortcodesIn(...texts);
  if (shortcodes.length === 0) return '[]';
  const rows = await emojis.enabledEmojis(shortcodes);
  return JSON.stringify(usedEmojis(new Map(rows.map((row) => [row.shortcode, row])), ...texts));
}
