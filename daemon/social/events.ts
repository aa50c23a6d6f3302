/**
 * The social instance's internal event bus. Streaming (timelines, notifications) and federation
 * (deliveries) subscribe here instead of being called by the services. Ids are strings.
 *
 * Subscriptions are keyed by their owner, as Zigbee2MQTT's event bus does: a part passes itself
 * when it subscribes, and one `removeListeners(itself)` takes back everything it subscribed.
 */

export interface SocialEvents {
  /** `local`: a status written here (a post, a reblog), not a peer's. */
  'status.created': [{ statusId: string; accountId: string; local: boolean }];
  'status.updated': [{ statusId: string; accountId: string }];
  'status.deleted': [{ statusId: string; accountId: string; uri: string }];
  /** A vote was cast (by `accountId`, local or a peer) in the poll of `statusId`. */
  'poll.voted': [{ pollId: string; statusId: string; accountId: string; choices: number[] }];
  'poll.ended': [{ pollId: string; statusId: string; accountId: string }];
  'notification.created': [{ notificationId: string; accountId: string; type: string }];
  'notifications.removed': [{ accountId: string }];
  'follow.created': [{ accountId: string; targetAccountId: string; pending: boolean }];
  'follow.removed': [{ accountId: string; targetAccountId: string }];
  'follow_request.authorized': [{ accountId: string; targetAccountId: string }];
  'follow_request.rejected': [{ accountId: string; targetAccountId: string }];
  'favourite.created': [{ accountId: string; statusId: string }];
  'favourite.removed': [{ accountId: string; statusId: string }];
  'reblog.created': [{ accountId: string; statusId: string; reblogId: string }];
  'reblog.removed': [{ accountId: string; statusId: string; reblogId: string }];
  'block.created': [{ accountId: string; targetAccountId: string }];
  /** A local account's report that asked to be forwarded to the reported account's server. */
  'report.forwarded': [{ reportId: string }];
  'block.removed': [{ accountId: string; targetAccountId: string }];
  'mute.changed': [{ accountId: string; targetAccountId: string; muted: boolean }];
  'account.created': [{ accountId: string }];
  'account.updated': [{ accountId: string }];
  'marker.updated': [{ accountId: string; timeline: string }];
  'filters.changed': [{ accountId: string }];
  'announcement.reaction': [{ announcementId: string; name: string; count: number }];
}

export type SocialEventName = keyof SocialEvents;
export type SocialListener<K extends SocialEventName> = (...args: SocialEvents[K]) => void;

type AnyListener = (...args: unknown[]) => void;

export class SocialEventBus {
  private readonly listeners = new Map<SocialEventName, AnyListener[]>();
  /** What each owner subscribed, for removeListeners. */
  private readonly byOwner = new Map<object, Array<[SocialEventName, AnyListener]>>();

  /** Calls `listener` on every `name` event until `removeListeners(owner)`. */
  on<K extends SocialEventName>(owner: object, name: K, listener: SocialListener<K>): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener as unknown as AnyListener]);
    const owned = this.byOwner.get(owner) ?? [];
    owned.push([name, listener as unknown as AnyListener]);
    this.byOwner.set(owner, owned);
  }

  /** Takes back every subscription `owner` made. */
  removeListeners(owner: object): void {
    for (const [name, listener] of this.byOwner.get(owner) ?? []) {
      const remaining = (this.listeners.get(name) ?? []).filter((candidate) => candidate !== listener);
      if (remaining.length) this.listeners.set(name, remaining);
      else this.listeners.delete(name);
    }
    this.byOwner.delete(owner);
  }

  /**
   * Calls the listeners of `name` in the order they subscribed, as EventEmitter does; the list
   * is copied on change, so a listener that unsubscribes does not disturb this round.
   */
  emit<K extends SocialEventName>(name: K, ...args: SocialEvents[K]): void {
    const listeners = this.listeners.get(name);
    if (!listeners) return;
    for (const listener of listeners) (listener as unknown as SocialListener<K>)(...args);
  }

  /** How many subscriptions `name` has (tests, and a check that a stopped part left none behind). */
  listenerCount(name: SocialEventName): number {
    return this.listeners.get(name)?.length ?? 0;
  }
}
