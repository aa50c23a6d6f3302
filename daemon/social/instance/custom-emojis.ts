/** The box's own custom emoji, looked up by the shortcodes a text uses (statuses, profiles). */
import type { SocialContext } from '../context.js';
import { shortcodesIn, usedEmojis } from '../statuses/emojis.js';
import { InstanceRepo } from './repo.js';

/** The enabled local emoji `texts` use, as stored JSON for a status or an account. */
export async function localEmojisIn(ctx: SocialContext, ...texts: string[]): Promise<string> {
  const shortcodes = shortcodesIn(...texts);
  if (shortcodes.length === 0) return '[]';
  const rows = await new InstanceRepo(ctx).enabledEmojis(shortcodes);
  return JSON.stringify(usedEmojis(new Map(rows.map((row) => [row.shortcode, row])), ...texts));
}
