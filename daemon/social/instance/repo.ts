/** SQL behind the instance records: figures, rules, custom emojis, peers (one text for both engines). */
import type { SocialContext } from '../context.js';
import { dialectOf } from '../../store/dialect.js';

export interface EmojiRow {
  shortcode: string;
  image_url: string;
  static_url: string;
  visible_in_picker: number;
  category: string | null;
}

export class InstanceRepo {
  constructor(private readonly ctx: SocialContext) {}

  async stats(): Promise<{ users: number; statuses: number; domains: number; active_month: number }> {
    const since = new Date(this.ctx.now() - 30 * 86400_000).toISOString();
    const row = await this.ctx.reader.get<{ users: number; statuses: number; domains: number; active_month: number }>(
      `SELECT
      (SELECT count(*) FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.suspended_at IS NULL AND u.approved) AS users,
      (SELECT count(*) FROM statuses WHERE local AND deleted_at IS NULL AND reblog_of_id IS NULL) AS statuses,
      (SELECT count(DISTINCT lower(domain)) FROM accounts WHERE domain IS NOT NULL) AS domains,
      (SELECT count(*) FROM accounts WHERE domain IS NULL AND last_status_at >= ?) AS active_month`,
      [since],
    );
    return row!;
  }

  rules(): Promise<Array<{ id: number; text: string; hint: string }>> {
    return this.ctx.reader.all(`SELECT id, text, hint FROM server_rules ORDER BY position, id`);
  }

  emojis(): Promise<EmojiRow[]> {
    return this.ctx.reader
      .all<EmojiRow>(`SELECT shortcode, image_url, static_url, visible_in_picker, category FROM custom_emojis
      WHERE domain IS NULL AND NOT disabled ORDER BY lower(shortcode)`);
  }

  /** Known domains starting with `prefix`, any case. */
  peers(prefix: string, limit: number): Promise<Array<{ domain: string }>> {
    return this.ctx.reader.all(
      `SELECT DISTINCT lower(domain) AS domain FROM accounts WHERE domain IS NOT NULL
      AND lower(domain) >= lower(?1) AND lower(domain) < lower(?1) || ${dialectOf(this.ctx.db).topCharacter} ORDER BY 1 LIMIT ?2`,
      [prefix, limit],
    );
  }

  contactAccountId(): Promise<{ id: string; email: string } | undefined> {
    return this.ctx.reader.get(
      `SELECT CAST(account_id AS TEXT) AS id, email FROM users WHERE role = 'owner' ORDER BY created_at LIMIT 1`,
    );
  }

  localAccountId(username: string): Promise<string | undefined> {
    return this.ctx.reader
      .get<{ id: string }>(
        `SELECT CAST(id AS TEXT) AS id FROM accounts WHERE domain IS NULL AND lower(username) = lower(?) AND suspended_at IS NULL`,
        [username],
      )
      .then((row) => row?.id);
  }
}
