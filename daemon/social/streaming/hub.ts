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
import type { ConversationsService } from '../conversations/service.js';
import { StreamingRepo } from './repo.js';
import { renderConversations } from '../conversations/render.js';
import type { StreamConnection } from './connection.js';
import type { StatusVisibility } from '../statuses/visibility.js';

export class StreamHub {
  private readonly byChannel = new Map<string, Set<StreamConnection>>();
  private readonly byAccount = new Map<string, Set<StreamConnection>>();

  private readonly repo: StreamingRepo;

  constructor(
    private readonly ctx: SocialContext,
    private readonly renderer: StatusRenderer,
    private readonly notifications: NotificationsService,
    private readonly conversations: ConversationsService,
    private readonly visibility: StatusVisibility,
  ) {
    this.repo = new StreamingRepo(ctx);
  }

  start(): void {
    const on = <K extends keyof SocialEvents>(name: K, handler: (...args: SocialEvents[K]) => Promise<void>) => {
      const listener = (...args: SocialEvents[K]) => {
        handler(...args).catch((error) => this.ctx.log.warn('streaming delivery failed', { event: name, error }));
      };
      this.ctx.events.on(this, name, listener);
    };
    on('status.created', (e: { statusId: string; accountId: string }) =>
      this.status(e.statusId, e.accountId, 'update'),
    );
    on('status.updated', (e: { statusId: string; accountId: string }) =>
      this.status(e.statusId, e.accountId, 'status.update'),
    );
    on('status.deleted', (e: { statusId: string }) => this.deleted(e.statusId));
    on('notification.created', (e: { notificationId: string; accountId: string }) =>
      this.notification(e.notificationId, e.accountId),
    );
    on('filters.changed', async (e: { accountId: string }) =>
      this.toAccount(e.accountId, ['user'], (c, channel) => c.send(channel, 'filters_changed')),
    );
    on('announcement.reaction', async (e: { announcementId: string; name: string; count: number }) => {
      const payload = { name: e.name, count: e.count, announcement_id: e.announcementId };
      for (const accountId of this.byAccount.keys())
        this.toAccount(accountId, ['user'], (c, channel) => c.send(channel, 'announcement.reaction', payload));
    });
  }

  stop(): void {
    this.ctx.events.removeListeners(this);
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

  ownsList(accountId: string, listId: string): Promise<boolean> {
    return this.repo.ownsList(accountId, listId);
  }

  private async notification(id: string, accountId: string): Promise<void> {
    if (!this.byAccount.has(accountId)) return;
    const row = await this.notifications.find(accountId, id);
    if (!row || row.filtered) return;
    const [accounts, statuses] = await Promise.all([
      this.renderer.accountsById([row.from_account_id]),
      this.renderer.render(row.status_id ? [row.status_id] : [], accountId),
    ]);
    const json = serializeNotification(row, accounts, statuses);
    if (json)
      this.toAccount(accountId, ['user', 'user:notification'], (c, channel) => c.send(channel, 'notification', json));
  }

  private async status(statusId: string, authorId: string, event: string): Promise<void> {
    if (this.byChannel.size === 0) return;
    const facts = await this.repo.statusFacts(statusId);
    if (!facts) return;
    await this.home(
      statusId,
      authorId,
      event,
      facts.reblog,
      facts.visibility === 'public' && !facts.reblog,
      facts.visibility === 'direct',
    );
    await this.lists(statusId, event);
    if (facts.visibility === 'direct') await this.conversationEvents(statusId);
    if (facts.visibility !== 'public' || facts.reblog) return;
    const keys = hashtagChannels(facts.tags, facts.local);
    if (!facts.replyToOther) keys.push(...publicChannels(facts.local, facts.media));
    const targets = new Set<StreamConnection>();
    for (const key of keys) for (const connection of this.byChannel.get(key) ?? []) targets.add(connection);
    const cache = new Map<string, StatusJson | null>();
    for (const connection of targets) {
      const json = await this.renderFor(statusId, connection.accountId, cache);
      if (!json || (connection.accountId && (await this.repo.blockedOrMuted(connection.accountId, authorId)))) continue;
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
  private async home(
    statusId: string,
    authorId: string,
    event: string,
    reblog: boolean,
    tagged: boolean,
    direct: boolean,
  ): Promise<void> {
    const connected = [...this.byAccount.keys()];
    if (connected.length === 0) return;
    const rows = await this.repo.homeRecipients(statusId, authorId, connected, { reblog, tagged, direct });
    const recipients = new Set(rows);
    if (this.byAccount.has(authorId)) recipients.add(authorId);
    const cache = new Map<string, StatusJson | null>();
    for (const accountId of recipients) {
      const json = await this.renderFor(statusId, accountId, cache);
      if (json) this.toAccount(accountId, ['user'], (c, channel) => c.send(channel, event, json));
    }
  }

  /** The `direct` streams of the local accounts in a direct status's conversation: the conversation as it now is. */
  private async conversationEvents(statusId: string): Promise<void> {
    for (const { accountId, id } of await this.conversations.entriesOfStatus(statusId)) {
      if (!this.byAccount.has(accountId)) continue;
      const row = await this.conversations.find(accountId, id);
      const [json] = row ? await renderConversations(this.renderer, accountId, [row]) : [];
      if (json) this.toAccount(accountId, ['direct'], (c, channel) => c.send(channel, 'conversation', json));
    }
  }

  /** The `list` streams of the lists that show the status (the list timeline's own rule). */
  private async lists(statusId: string, event: string): Promise<void> {
    const listIds = [...this.byChannel.keys()]
      .filter((key) => key.startsWith('list:'))
      .map((key) => key.slice('list:'.length));
    if (listIds.length === 0) return;
    const rows = await this.repo.listsShowing(statusId, listIds);
    const cache = new Map<string, StatusJson | null>();
    for (const { listId, ownerId } of rows) {
      const json = await this.renderFor(statusId, ownerId, cache);
      if (json) this.toAccount(ownerId, [listChannel(listId)], (c, channel) => c.send(channel, event, json));
    }
  }

  private async renderFor(
    statusId: string,
    viewerId: string | null,
    cache: Map<string, StatusJson | null>,
  ): Promise<StatusJson | null> {
    const key = viewerId ?? '';
    if (!cache.has(key)) {
      const json = (await this.renderer.render([statusId], viewerId)).get(statusId) ?? null;
      const hidden = (json?.filtered as Array<{ filter: { filter_action: string } }> | undefined)?.some(
        (f) => f.filter.filter_action === 'hide',
      );
      cache.set(key, hidden ? null : json);
    }
    return cache.get(key)!;
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
