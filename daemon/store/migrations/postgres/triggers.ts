/**
 * The rules SQLite holds in triggers (docs/architecture.md §8.5), as plpgsql functions holding the
 * same rules, row for row. Render versions bump in BEFORE triggers on the row itself (no second
 * UPDATE); the rest run AFTER the write, in its transaction, as on SQLite. Full-text search needs
 * no trigger here: its GIN indexes are on expressions PostgreSQL keeps current itself.
 */
import { NOW } from './columns.js';

/** The rules of one table: `function` is its body (plpgsql), run by a trigger of `when`. */
interface Rule {
  name: string;
  table: string;
  when: string;
  body: string;
}

/** Any write to a row that does not move its version itself moves it (the render cache's key). */
const renderVersionOwnRow = (table: string): Rule => ({
  name: `${table}_render_version`,
  table,
  when: 'BEFORE UPDATE',
  body: `IF NEW.version = OLD.version THEN NEW.version := OLD.version + 1; END IF; RETURN NEW;`,
});

/** A change to what a status is rendered from (its mentions, tags, media, poll) moves its version. */
const renderVersionOfStatus = (table: string, when: string): Rule => ({
  name: `${table}_render_status`,
  table,
  when,
  body: `IF TG_OP <> 'DELETE' THEN UPDATE statuses SET version = version + 1 WHERE id = NEW.status_id; END IF;
    IF TG_OP <> 'INSERT' THEN UPDATE statuses SET version = version + 1 WHERE id = OLD.status_id; END IF;
    RETURN NULL;`,
});

/** A public, non-reblog status that a followed hashtag brought into `account`'s feed (kept by an unfollow). */
const followedTagKeeps = (account: string) => `(s.visibility = 'public' AND s.reblog_of_id IS NULL AND EXISTS (
      SELECT 1 FROM status_tags ft JOIN tag_follows tf ON tf.tag_id = ft.tag_id AND tf.account_id = ${account} WHERE ft.status_id = s.id))`;

/** How many filtered mentions `account` holds from `sender` (capped at 100, as the API shows). */
const filteredMentions = (account: string, sender: string) => `(SELECT count(*) FROM (SELECT 1 FROM notifications n
      WHERE n.account_id = ${account} AND n.from_account_id = ${sender} AND n.filtered AND n.type = 'mention' LIMIT 100) AS capped)`;

const recountRequest = `UPDATE notification_requests SET notifications_count = ${filteredMentions('OLD.account_id', 'OLD.from_account_id')}
      WHERE account_id = OLD.account_id AND from_account_id = OLD.from_account_id;
    DELETE FROM notification_requests
      WHERE account_id = OLD.account_id AND from_account_id = OLD.from_account_id AND notifications_count = 0;`;

const directStatus = (notification: string) =>
  `(SELECT visibility FROM statuses WHERE id = ${notification}.status_id) = 'direct'`;

const RULES: readonly Rule[] = [
  renderVersionOwnRow('accounts'),
  renderVersionOwnRow('statuses'),
  renderVersionOfStatus('mentions', 'AFTER INSERT OR DELETE'),
  renderVersionOfStatus('status_tags', 'AFTER INSERT OR DELETE'),
  renderVersionOfStatus('media_attachments', 'AFTER INSERT OR UPDATE OR DELETE'),
  renderVersionOfStatus('polls', 'AFTER INSERT OR UPDATE OR DELETE'),
  {
    name: 'home_feed_status_insert',
    table: 'statuses',
    when: 'AFTER INSERT',
    body: `INSERT INTO home_feed (account_id, status_id)
      SELECT f.account_id, NEW.id FROM follows f JOIN users u ON u.account_id = f.account_id WHERE f.target_account_id = NEW.account_id
      UNION ALL SELECT NEW.account_id, NEW.id WHERE EXISTS (SELECT 1 FROM users WHERE account_id = NEW.account_id)
      ON CONFLICT DO NOTHING;
    RETURN NULL;`,
  },
  {
    name: 'home_feed_follow_insert',
    table: 'follows',
    when: 'AFTER INSERT',
    body: `IF EXISTS (SELECT 1 FROM users WHERE account_id = NEW.account_id) THEN
      INSERT INTO home_feed (account_id, status_id)
        SELECT NEW.account_id, id FROM statuses WHERE account_id = NEW.target_account_id ORDER BY id DESC LIMIT 400
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;`,
  },
  {
    name: 'home_feed_follow_delete',
    table: 'follows',
    when: 'AFTER DELETE',
    body: `DELETE FROM home_feed WHERE account_id = OLD.account_id AND status_id IN (
      SELECT s.id FROM statuses s WHERE s.account_id = OLD.target_account_id AND NOT ${followedTagKeeps('OLD.account_id')});
    RETURN NULL;`,
  },
  {
    name: 'home_feed_tag_insert',
    table: 'status_tags',
    when: 'AFTER INSERT',
    body: `INSERT INTO home_feed (account_id, status_id)
      SELECT tf.account_id, s.id FROM tag_follows tf JOIN users u ON u.account_id = tf.account_id JOIN statuses s ON s.id = NEW.status_id
      WHERE tf.tag_id = NEW.tag_id AND s.visibility = 'public' AND s.reblog_of_id IS NULL
      ON CONFLICT DO NOTHING;
    RETURN NULL;`,
  },
  {
    name: 'home_feed_tag_unfollow',
    table: 'tag_follows',
    when: 'AFTER DELETE',
    body: `DELETE FROM home_feed WHERE account_id = OLD.account_id AND status_id IN (
      SELECT s.id FROM status_tags st JOIN statuses s ON s.id = st.status_id
      WHERE st.tag_id = OLD.tag_id AND s.account_id <> OLD.account_id
        AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.account_id = OLD.account_id AND f.target_account_id = s.account_id)
        AND NOT ${followedTagKeeps('OLD.account_id')});
    RETURN NULL;`,
  },
  {
    name: 'notification_requests_add',
    table: 'notifications',
    when: 'AFTER INSERT',
    body: `IF NEW.filtered AND NEW.type = 'mention' THEN
      INSERT INTO notification_requests (account_id, from_account_id, last_status_id, notifications_count, created_at, updated_at)
        VALUES (NEW.account_id, NEW.from_account_id, NEW.status_id, ${filteredMentions('NEW.account_id', 'NEW.from_account_id')}, ${NOW}, ${NOW})
      ON CONFLICT (account_id, from_account_id) DO UPDATE SET last_status_id = excluded.last_status_id,
        notifications_count = excluded.notifications_count, updated_at = excluded.updated_at;
    END IF;
    RETURN NULL;`,
  },
  {
    name: 'notification_requests_remove',
    table: 'notifications',
    when: 'AFTER DELETE',
    body: `IF OLD.filtered AND OLD.type = 'mention' THEN ${recountRequest} END IF;
    RETURN NULL;`,
  },
  {
    name: 'notification_requests_unfilter',
    table: 'notifications',
    when: 'AFTER UPDATE OF filtered',
    body: `IF OLD.filtered AND NOT NEW.filtered AND OLD.type = 'mention' THEN ${recountRequest} END IF;
    RETURN NULL;`,
  },
  {
    name: 'account_conversations_held_back',
    table: 'notifications',
    when: 'AFTER INSERT',
    body: `IF NEW.filtered AND NEW.type = 'mention' AND ${directStatus('NEW')} THEN
      UPDATE account_conversations ac SET last_status_id = coalesce((SELECT max(s.id) FROM statuses s
          WHERE s.conversation_id = ac.conversation_id AND s.visibility = 'direct' AND s.deleted_at IS NULL
            AND (s.account_id = NEW.account_id OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = NEW.account_id))
            AND NOT EXISTS (SELECT 1 FROM notifications h
              WHERE h.account_id = NEW.account_id AND h.status_id = s.id AND h.type = 'mention' AND h.filtered)), 0)
        WHERE ac.account_id = NEW.account_id AND ac.conversation_id = (SELECT conversation_id FROM statuses WHERE id = NEW.status_id);
      DELETE FROM account_conversations WHERE account_id = NEW.account_id AND last_status_id = 0;
    END IF;
    RETURN NULL;`,
  },
  {
    name: 'account_conversations_accepted',
    table: 'notifications',
    when: 'AFTER UPDATE OF filtered',
    body: `IF OLD.filtered AND NOT NEW.filtered AND NEW.type = 'mention' AND ${directStatus('NEW')} THEN
      INSERT INTO account_conversations AS ac (account_id, conversation_id, last_status_id, unread)
        SELECT NEW.account_id, s.conversation_id, s.id, TRUE FROM statuses s
        WHERE s.id = NEW.status_id AND s.conversation_id IS NOT NULL AND s.deleted_at IS NULL
      ON CONFLICT (account_id, conversation_id) DO UPDATE SET
        unread = CASE WHEN excluded.last_status_id > ac.last_status_id THEN TRUE ELSE ac.unread END,
        last_status_id = greatest(ac.last_status_id, excluded.last_status_id);
    END IF;
    RETURN NULL;`,
  },
];

/** Each rule as a function and the trigger that runs it once per row. */
export const TRIGGERS: readonly string[] = RULES.flatMap((rule) => [
  `CREATE FUNCTION ${rule.name}() RETURNS trigger LANGUAGE plpgsql AS $rule$
  BEGIN
    ${rule.body}
  END $rule$`,
  `CREATE TRIGGER ${rule.name} ${rule.when} ON ${rule.table} FOR EACH ROW EXECUTE FUNCTION ${rule.name}()`,
]);

/** Full-text search (FTS5 on SQLite): GIN indexes on the same columns, reblogs left out as there. */
export const SEARCH_INDEXES: readonly string[] = [
  `CREATE INDEX statuses_search ON statuses USING gin (to_tsvector('simple', text || ' ' || spoiler_text))
    WHERE reblog_of_id IS NULL`,
  `CREATE INDEX accounts_search ON accounts USING gin (
    to_tsvector('simple', username || ' ' || display_name || ' ' || coalesce(domain, '')))`,
];
