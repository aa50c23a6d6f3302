/**
 * Web Push delivery: each new notification goes to the recipient's subscriptions whose alerts and
 * policy allow it, encrypted and signed by the web-push library (VAPID), sent through the client
 * for other servers: an endpoint is a URL any account holder chose, so, as Mastodon does, it gets
 * the federation's address policy (no loopback or private address, whatever its name resolves to:
 * no requests into the owner's home network) and its limits. Retried on network errors, 429 and 5xx
 * (three attempts); the subscription dropped on 404 or 410.
 */
import type { SocialContext } from '../context.js';
import type { NotificationsService } from '../notifications/service.js';
import { webPush, type VapidKeys } from './vapid.js';
import type { PushRepo, PushRow } from './repo.js';
import { ForbiddenAddressError } from '../federation/net/address-policy.js';
import type { PeerClient } from '../federation/net/client.js';

/** What delivery needs of the client for other servers. */
export type PushSender = Pick<PeerClient, 'postPlain'>;

const RETRY_DELAYS_MS = [1000, 5000];
const TTL_S = 48 * 3600;

export class PushDelivery {
  private readonly pending = new Set<Promise<void>>();
  private readonly listener = (e: { notificationId: string; accountId: string; type: string }) => {
    const job = this.deliver(e).catch((error) =>
      this.ctx.log.warn('push delivery failed', { error: (error as Error).message }),
    );
    this.pending.add(job);
    void job.finally(() => this.pending.delete(job));
  };

  constructor(
    private readonly ctx: SocialContext,
    private readonly repo: PushRepo,
    private readonly notifications: NotificationsService,
    private readonly vapid: () => VapidKeys,
    private readonly sender: PushSender,
    private readonly retryDelays = RETRY_DELAYS_MS,
  ) {}

  start(): void {
    this.ctx.events.on(this, 'notification.created', this.listener);
  }

  async stop(): Promise<void> {
    this.ctx.events.removeListeners(this);
    await Promise.allSettled([...this.pending]);
  }

  private async deliver(e: { notificationId: string; accountId: string; type: string }): Promise<void> {
    const subscriptions = await this.repo.ofAccount(e.accountId);
    if (subscriptions.length === 0) return;
    const row = await this.notifications.find(e.accountId, e.notificationId);
    if (!row || row.filtered) return;
    const sender = await this.repo.sender(row.from_account_id);
    for (const subscription of subscriptions) {
      const alerts = JSON.parse(subscription.alerts) as Record<string, boolean>;
      if (!alerts[row.type] || !(await this.policyAllows(subscription, row.from_account_id))) continue;
      const payload = JSON.stringify({
        notification_id: row.id,
        notification_type: row.type,
        preferred_locale: 'en',
        icon: sender?.avatar ?? `${this.ctx.config.baseUrl}/avatars/original/missing.png`,
        title: titleFor(row.type, sender?.display_name || sender?.username || 'Someone'),
        body: '',
      });
      await this.send(subscription, payload);
    }
  }

  private async policyAllows(subscription: PushRow, fromId: string): Promise<boolean> {
    const follows = (a: string, b: string) => this.repo.follows(a, b);
    switch (subscription.policy) {
      case 'all':
        return true;
      case 'none':
        return false;
      case 'followed':
        return follows(subscription.account_id, fromId);
      case 'follower':
        return follows(fromId, subscription.account_id);
      default:
        return false;
    }
  }

  private async send(subscription: PushRow, payload: string): Promise<void> {
    const keys = this.vapid();
    const request = (await webPush()).generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.key_p256dh, auth: subscription.key_auth } },
      payload,
      {
        vapidDetails: {
          subject: vapidSubject(this.ctx.config.baseUrl),
          publicKey: keys.publicKey,
          privateKey: keys.privateKey,
        },
        TTL: TTL_S,
        contentEncoding: subscription.standard ? 'aes128gcm' : 'aesgcm',
      },
    );
    for (let attempt = 0; ; attempt++) {
      let status = 0;
      try {
        status = (await this.sender.postPlain(request.endpoint, request.headers, request.body)).status;
      } catch (error) {
        if (error instanceof ForbiddenAddressError) {
          this.ctx.log.warn('push endpoint refused: not a public address', { subscription_id: subscription.id });
          return;
        }
        // A network error: retried.
      }
      if (status >= 200 && status < 300) return;
      if (status === 404 || status === 410) {
        await this.repo.remove(subscription.id);
        this.ctx.log.info('push subscription dropped', { subscription_id: subscription.id, status });
        return;
      }
      const retriable = status === 0 || status === 429 || status >= 500;
      if (!retriable || attempt >= this.retryDelays.length) {
        this.ctx.log.warn('push not delivered', { subscription_id: subscription.id, status, attempts: attempt + 1 });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, this.retryDelays[attempt]));
    }
  }
}

function titleFor(type: string, name: string): string {
  const titles: Record<string, string> = {
    mention: `You were mentioned by ${name}`,
    favourite: `${name} favourited your post`,
    reblog: `${name} boosted your post`,
    follow: `${name} is now following you`,
    follow_request: `${name} wants to follow you`,
    status: `${name} just posted`,
    update: `${name} edited a post`,
  };
  return titles[type] ?? `New notification from ${name}`;
}

/** VAPID wants an https: or mailto: contact: the instance itself when it is on https. */
function vapidSubject(baseUrl: string): string {
  const url = new URL(baseUrl);
  return url.protocol === 'https:' ? url.origin : `mailto:postmaster@${url.hostname}`;
}
