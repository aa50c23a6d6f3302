/**
 * Routes the social event bus to connected clients: each status, notification, deletion and
 * filter change goes only to the channels (and, for user streams, the accounts) it concerns,
 * rendered once per viewer with string ids. Statuses a viewer's `hide` filter matches are not sent.
 * Announcement reaction counts go to every user stream; list streams get what their list shows;
 * `direct` streams get the conversation a direct status moved. A status, and its deletion, reach
 * only those the visibility rule (statuses/visibility.ts) lets see it.
 */
import type { SocialContext } from '../context.js';
import type { SocialEvents } from '../events.js';
import type { StatusRenderer, StatusJson } from '../statuses/serialize.js';
import type { NotificationsService } from '../notifications/service.js';
import { serializeNotification } from '../notifications/serialize.js';
import type { Channel } from './channels.js';
import { hashtagChannels, listChannel, publicChannels } from './channels.js';
import { listShows } from '../timelines/repo.js';
import { ConversationsRepo } from '../conversations/repo.js';
import { renderConversations } from '../conversations/render.js';
import type { StreamConnection } from './connection.js';
import type { StatusVisibility } from '../statuses/visibility.js';

export class StreamHub {
  private readonly byChannel = new Map<string, Set<StreamConnection>>();
  private readonly byAccount = new Map<string, Set<StreamConnection>>();
  private readonly unsubscribers: Array<() => void> = [];

  private readonly conversationsRepo: ConversationsRepo;

  constructor(private readonly ctx: SocialContext, private readonly renderer: StatusRenderer, private readonly notifications: NotificationsService, private readonly visibility: StatusVisibility) {
    this.conversationsRepo = new ConversationsRepo(ctx);
  }

  start(): void {
    const on = <K extends keyof SocialEvents>(name: K, handler: (...args: SocialEvents[K]) => Promise<void>) => {
      const listener = (...args: SocialEvents[K]) => { handler(...args).catch((error) => this.ctx.log.warn('streaming delivery failed', { event: name, error })); };
      this.ctx.events.on(name, listener as never);
      this.unsubscribers.push(() => this.ctx.events.off(name, listener as never));
    };
    on('status.created', (e: { statusId: string; accountId: string }) => this.status(e.statusId, e.accountId, 'update'));
    on('status.updated', (e: { statusId: string; accountId: string }) => this.status(e.statusId, e.accountId, 'status.update'));
    on('status.deleted', (e: { statusId: string }) => this.deleted(e.statusId));
    on('notification.created', (e: { notificationId: string; accountId: string }) => this.notification(e.notificationId, e.accountId));
    on('filters.changed', async (e: { accountId: string }) => this.toAccount(e.accountId, ['user'], (c, channel) => c.send(channel, 'filters_changed')));
    on('announcement.reaction', async (e: { announcementId: string; name: string; count: number }) => {
      const payload = { name: e.name, count: e.count, announcement_id: e.announcementId };
      for (const accountId of this.byAccount.keys()) this.toAccount(accountId, ['user'], (c, channel) => c.send(channel, 'announcement.reaction', payload));
    });
  }

  stop(): void {
    for (const off of this.unsubscribers.splice(0)) off();
  }

  get size(): number {
    let n = 0;
    for (const set of this.byAccount.values()) n += set.size;
    return n;
  }

  subscribe(connection: StreamConnection, channel: Channel): void {
    if (connection.closed) return;
    connection.channels.set(channel.key, channel);
    add(this.byChannel, channel.key, connection);
    if (connection.accountId) add(this.byAccount, connection.accountId, connection);
  }

  unsubscribe(connection: StreamConnection, key: string): void {
    connection.channels.delete(key);
    remove(this.byChannel, key, connection);
  }

  drop(connection: StreamConnection): void {
    connection.closed = true;
    for (const key of connection.channels.keys()) remove(this.byChannel, key, connection);
    connection.channels.clear();
    if (connection.accountId) remove(this.byAccount, connection.accountId, connection);
  }

  private toAccount(accountId: string, keys: string[], send: (c: StreamConnection, channel: Channel) => void): void {
    for (const connection of this.byAccount.get(accountId) ?? []) {
      for (const key of keys) {
        const channel = connection.channels.get(key);
        if (channel) send(connection, channel);
      }
    }
  }

  async ownsList(accountId: string, listId: string): Promise<boolean> {
    return Boolean(await this.ctx.reader.get(`SELECT 1 AS x FROM lists WHERE id = ? AND account_id = ?`, [listId, accountId]));
  }

  private async notification(id: string, accountId: string): Promise<void> {
    if (!this.byAccount.has(accountId)) return;
    const row = await this.notifications.repo.one(accountId, id);
    if (!row || row.filtered) return;
    const [accounts, statuses] = await Promise.all([
      this.renderer.accountsById([row.from_account_id]),
      this.renderer.render(row.status_id ? [row.status_id] : [], accountId),
    ]);
    const json = serializeNotification(row, accounts, statuses);
    if (json) this.toAccount(accountId, ['user', 'user:notification'], (c, channel) => c.send(channel, 'notification', json));
  }

  private async status(statusId: string, authorId: string, event: string): Promise<void> {
    const facts = await this.ctx.reader.get<{ visibility: string; local: number; reblog: number; reply_other: number; media: number; tags: string | null }>(`
      SELECT s.visibility, s.local, s.reblog_of_id IS NOT NULL AS reblog,
        (s.in_reply_to_id IS NOT NULL AND s.in_reply_to_account_id != s.account_id) AS reply_other,
        EXISTS (SELECT 1 FROM media_attachments m WHERE m.status_id = s.id) AS media,
        (SELECT json_group_array(lower(t.name)) FROM status_tags st JOIN tags t ON t.id = st.tag_id WHERE st.status_id = s.id) AS tags
      FROM statuses s WHERE s.id = ?`, [statusId]);
    if (!facts) return;
    await this.home(statusId, authorId, event, Boolean(facts.reblog), facts.visibility === 'public' && !facts.reblog, facts.visibility === 'direct');
    await this.lists(statusId, event);
    if (facts.visibility === 'direct') await this.conversations(statusId);
    if (facts.visibility !== 'public' || facts.reblog) return;
    const keys = hashtagChannels(JSON.parse(facts.tags ?? '[]') as string[], Boolean(facts.local));
    if (!facts.reply_other) keys.push(...publicChannels(Boolean(facts.local), Boolean(facts.media)));
    const targets = new Set<StreamConnection>();
    for (const key of keys) for (const connection of this.byChannel.get(key) ?? []) targets.add(connection);
    const cache = new Map<string, StatusJson | null>();
    for (const connection of targets) {
      const json = await this.renderFor(statusId, connection.accountId, cache);
      if (!json || (connection.accountId && (await this.hiddenFor(connection.accountId, authorId)))) continue;
      for (const key of keys) {
        const channel = connection.channels.get(key);
        if (channel) connection.send(channel, event, json);
      }
    }
  }

  /**
   * The `user` streams of the author, their local followers (of a direct status: those it
   * mentions only) and, for a public post, those following one of its hashtags.
   */
  private async home(statusId: string, authorId: string, event: string, reblog: boolean, tagged: boolean, direct: boolean): Promise<void> {
    const connected = [...this.byAccount.keys()];
    if (connected.length === 0) return;
    const rows = await this.ctx.reader.all<{ id: string }>(`SELECT CAST(account_id AS TEXT) AS id FROM follows
      WHERE target_account_id = ?1 AND (?3 = 0 OR show_reblogs = 1) AND account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?2))
        AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = follows.account_id AND m.target_account_id = ?1)
        AND (?6 = 0 OR EXISTS (SELECT 1 FROM mentions mn WHERE mn.status_id = ?4 AND mn.account_id = follows.account_id))
      UNION SELECT CAST(tf.account_id AS TEXT) FROM status_tags st JOIN tag_follows tf ON tf.tag_id = st.tag_id
      WHERE ?5 = 1 AND st.status_id = ?4 AND tf.account_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?2))
        AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = tf.account_id AND m.target_account_id = ?1)
        AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = tf.account_id AND b.target_account_id = ?1) OR (b.account_id = ?1 AND b.target_account_id = tf.account_id))`,
    [authorId, JSON.stringify(connected), reblog ? 1 : 0, statusId, tagged ? 1 : 0, direct ? 1 : 0]);
    const recipients = new Set(rows.map((row) => row.id));
    if (this.byAccount.has(authorId)) recipients.add(authorId);
    const cache = new Map<string, StatusJson | null>();
    for (const accountId of recipients) {
      const json = await this.renderFor(statusId, accountId, cache);
      if (json) this.toAccount(accountId, ['user'], (c, channel) => c.send(channel, event, json));
    }
  }

  /** The `direct` streams of the local accounts in a direct status's conversation: the conversation as it now is. */
  private async conversations(statusId: string): Promise<void> {
    for (const { account_id: accountId, id } of await this.conversationsRepo.ofStatus(statusId)) {
      if (!this.byAccount.has(accountId)) continue;
      const row = await this.conversationsRepo.one(accountId, id);
      const [json] = row ? await renderConversations(this.renderer, accountId, [row]) : [];
      if (json) this.toAccount(accountId, ['direct'], (c, channel) => c.send(channel, 'conversation', json));
    }
  }

  /** The `list` streams of the lists that show the status (the list timeline's own rule). */
  private async lists(statusId: string, event: string): Promise<void> {
    const listIds = [...this.byChannel.keys()].filter((key) => key.startsWith('list:')).map((key) => key.slice('list:'.length));
    if (listIds.length === 0) return;
    const rows = await this.ctx.reader.all<{ list_id: string; owner_id: string }>(`SELECT CAST(l.id AS TEXT) AS list_id, CAST(l.account_id AS TEXT) AS owner_id
      FROM lists l JOIN statuses s ON s.id = ?1 WHERE l.id IN (SELECT CAST(value AS INTEGER) FROM json_each(?2)) AND ${listShows('l.account_id', 'l.id')}`,
    [statusId, JSON.stringify(listIds)]);
    const cache = new Map<string, StatusJson | null>();
    for (const { list_id: listId, owner_id: ownerId } of rows) {
      const json = await this.renderFor(statusId, ownerId, cache);
      if (json) this.toAccount(ownerId, [listChannel(listId)], (c, channel) => c.send(channel, event, json));
    }
  }

  private async renderFor(statusId: string, viewerId: string | null, cache: Map<string, StatusJson | null>): Promise<StatusJson | null> {
    const key = viewerId ?? '';
    if (!cache.has(key)) {
      const json = (await this.renderer.render([statusId], viewerId)).get(statusId) ?? null;
      const hidden = (json?.filtered as Array<{ filter: { filter_action: string } }> | undefined)?.some((f) => f.filter.filter_action === 'hide');
      cache.set(key, hidden ? null : json);
    }
    return cache.get(key)!;
  }

  private async hiddenFor(viewerId: string, authorId: string): Promise<boolean> {
    return Boolean(await this.ctx.reader.get(`SELECT 1 AS x FROM blocks WHERE (account_id = ?1 AND target_account_id = ?2) OR (account_id = ?2 AND target_account_id = ?1)
      UNION ALL SELECT 1 FROM mutes WHERE account_id = ?1 AND target_account_id = ?2`, [viewerId, authorId]));
  }

  /** A deletion goes to the streams of those who may see the status: even its id is not for others. */
  private async deleted(statusId: string): Promise<void> {
    if (this.byChannel.size === 0) return;
    const audience = await this.visibility.viewersOf(statusId, [...this.byAccount.keys()]);
    const seen = new Set<StreamConnection>();
    for (const set of this.byChannel.values()) {
      for (const connection of set) {
        if (seen.has(connection)) continue;
        seen.add(connection);
        if (connection.accountId ? !audience.accounts.has(connection.accountId) : !audience.anyone) continue;
        const channel = connection.channels.values().next().value;
        if (channel) connection.send(channel, 'delete', statusId);
      }
    }
  }
}

function add<K>(map: Map<K, Set<StreamConnection>>, key: K, connection: StreamConnection): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(connection);
}

function remove<K>(map: Map<K, Set<StreamConnection>>, key: K, connection: StreamConnection): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(connection);
  if (set.size === 0) map.delete(key);
}
