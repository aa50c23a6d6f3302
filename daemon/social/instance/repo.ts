/** SQL behind the instance records: figures (the API's, NodeInfo's, the device state's), rules, custom emojis, peers (one text for both engines). */
import type { StoredEmoji } from '../statuses/emojis.js';
import type { SocialContext } from '../context.js';
import { dialectOf } from '../../store/dialect.js';

export interface EmojiRow {
  shortcode: string;
  image_url: string;
  static_url: string;
  visible_in_picker: number;
  category: string | null;
}

/**
 * The instance figures the device state (and so MQTT) shows: accounts, local statuses (reblogs
 * included, as in the accounts' statuses_count), the owner's pending follow requests and the
 * owner's unread notifications (newer than the notifications marker, counted as Mastodon's v1
 * unread_count does, capped at 1000).
 */
export interface InstanceCounts {
  accounts: number;
  statuses: number;
  pending_follow_requests: number;
  unread_notifications: number;
}

const UNREAD_CAP = 1000;

export interface NodeInfoUsage {
  users: number;
  posts: number;
  month: number;
  halfyear: number;
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

  /** NodeInfo's usage: approved local users, local posts, users active in 30 and 182 days. */
  async nodeInfoUsage(): Promise<NodeInfoUsage> {
    const row = await this.ctx.reader.get<NodeInfoUsage>(
      `SELECT
      (SELECT count(*) FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.suspended_at IS NULL AND u.approved) AS users,
      (SELECT count(*) FROM statuses WHERE local AND deleted_at IS NULL AND reblog_of_id IS NULL) AS posts,
      (SELECT count(*) FROM accounts WHERE domain IS NULL AND last_status_at > ?1) AS month,
      (SELECT count(*) FROM accounts WHERE domain IS NULL AND last_status_at > ?2) AS halfyear`,
      [
        new Date(this.ctx.now() - 30 * 86400_000).toISOString(),
        new Date(this.ctx.now() - 182 * 86400_000).toISOString(),
      ],
    );
    return row ?? { users: 0, posts: 0, month: 0, halfyear: 0 };
  }

  async counts(): Promise<InstanceCounts> {
    const row = await this.ctx.reader.get<InstanceCounts>(`
    WITH owner AS (SELECT account_id AS id FROM users WHERE role = 'owner' ORDER BY created_at LIMIT 1)
    SELECT
      (SELECT count(*) FROM accounts WHERE domain IS NULL AND suspended_at IS NULL) AS accounts,
      -- The local accounts' counters (as Mastodon's instance statistics): no scan of the statuses.
      (SELECT coalesce(sum(statuses_count), 0) FROM accounts WHERE domain IS NULL) AS statuses,
      (SELECT count(*) FROM follow_requests WHERE target_account_id = (SELECT id FROM owner)) AS pending_follow_requests,
      (SELECT count(*) FROM (
         SELECT 1 FROM notifications n
          WHERE n.account_id = (SELECT id FROM owner) AND NOT n.filtered
            AND n.id > coalesce((SELECT last_read_id FROM markers WHERE account_id = (SELECT id FROM owner) AND timeline = 'notifications'), 0)
          LIMIT ${UNREAD_CAP}) AS unread) AS unread_notifications`);
    return row ?? { accounts: 0, statuses: 0, pending_follow_requests: 0, unread_notifications: 0 };
  }

  rules(): Promise<Array<{ id: number; text: string; hint: string }>> {
    return this.ctx.reader.all(`SELECT id, text, hint FROM server_rules ORDER BY position, id`);
  }

  emojis(): Promise<EmojiRow[]> {
    return this.ctx.reader
      .all<EmojiRow>(`SELECT shortcode, image_url, static_url, visible_in_picker, category FROM custom_emojis
      WHERE domain IS NULL AND NOT disabled ORDER BY lower(shortcode)`);
  }

  /** The enabled local emoji among `shortcodes`. */
  enabledEmojis(shortcodes: readonly string[]): Promise<StoredEmoji[]> {
    return this.ctx.reader.all<StoredEmoji>(
      `SELECT shortcode, image_url AS url, static_url FROM custom_emojis
      WHERE domain IS NULL AND NOT disabled AND shortcode IN (SELECT wanted.value FROM ${dialectOf(this.ctx.db).idsTable('wanted')})`,
      [JSON.stringify(shortcodes)],
    );
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
