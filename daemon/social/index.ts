/**
 * The social instance: builds its services on the shared database, mounts its routes on the
 * shared HTTP server, schedules its jobs, and offers the instance counts to the device state.
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log/logger.js';
import type { Db } from '../store/db.js';
import { SnowflakeGenerator } from '../store/ids.js';
import type { HttpServer } from '../http/server.js';
import type { Jobs } from '../lifecycle/jobs.js';
import { localDomainOf, type SocialContext } from './context.js';
import { SocialEventBus } from './events.js';
import { openReader } from './store/reader.js';
import { buildServices, type SocialServices } from './services.js';
import { socialRouter } from './router.js';
import { pagesRouter } from './pages/routes.js';
import type { InstanceCounts } from './instance/repo.js';
import { StoredIdsRepo } from './store/stored-ids-repo.js';
import { StreamHub } from './streaming/hub.js';
import { StreamingServer } from './streaming/server.js';
import { PushDelivery } from './push/delivery.js';
import { PushRepo } from './push/repo.js';
import { PeerClient } from './federation/net/client.js';
import { LinkVerifier } from './accounts/link-verification.js';
import { VERSION } from '../version.js';
import { PasswordHasher } from './accounts/password-hasher.js';
import type { FederationPeers } from './federation/peers.js';

/** How long local copies of peers' images are kept (Mastodon admins commonly keep a week). */
const REMOTE_MEDIA_CACHE_MS = 7 * 86_400_000;
/** What a browser asks for: the page a profile link points to is checked as a browser would get it. */
const ACCEPT_PAGE = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8';

export interface SocialOptions {
  db: Db;
  /** The SQLite file, opened a second time for prepared reads (unused on PostgreSQL). */
  filename: string;
  config: Config;
  log: Logger;
  now?: () => number;
  /** How federation reaches peers (the daemon): posting and search then look remote accounts up. */
  peers?: FederationPeers;
}

export class Social {
  private constructor(
    readonly ctx: SocialContext,
    readonly services: SocialServices,
    private readonly hasher: PasswordHasher,
  ) {}

  static async open(options: SocialOptions): Promise<Social> {
    const reader = await openReader(options.db, options.filename);
    const ids = new SnowflakeGenerator();
    const events = new SocialEventBus();
    const ctx: SocialContext = {
      db: options.db,
      reader,
      ids,
      events,
      config: options.config,
      log: options.log,
      localDomain: localDomainOf(options.config.baseUrl),
      mediaDir: join(options.config.dataDir, 'media'),
      now: options.now ?? Date.now,
    };
    await observeStoredIds(ctx);
    const hasher = new PasswordHasher(options.log);
    const services = await buildServices(ctx, hasher, options.peers ?? null);
    return new Social(ctx, services, hasher);
  }

  /** Streaming and federation subscribe here. */
  get events(): SocialEventBus {
    return this.ctx.events;
  }

  /** Mounts the social API, OAuth, web routes and the public pages (before the server starts listening). */
  mount(http: Pick<HttpServer, 'use'>): void {
    const router: Router = socialRouter(this.ctx, this.services);
    http.use(router.routes());
    http.use(router.allowedMethods() as unknown as Middleware);
    // After the API (which has no page paths), before federation: JSON requests at a page's path go on to it.
    http.use(pagesRouter(this.ctx, this.services).routes());
  }

  scheduleJobs(jobs: Jobs): void {
    jobs.add('social-expire-mutes', '* * * * *', () => this.services.relationships.expireMutes());
    jobs.add('social-unattached-media', '17 * * * *', () => this.services.media.removeStale());
    jobs.add('social-media-sweep', '47 * * * *', () => this.services.mediaSweep.run());
    jobs.add('social-oauth-vacuum', '43 4 * * *', () => this.services.oauth.vacuum());
    jobs.add('social-scheduled-statuses', '* * * * *', () => this.services.scheduled.publishDue());
    jobs.add('social-ended-polls', '* * * * *', () => this.services.polls.notifyEnded());
    jobs.add('social-remote-media-cache', '29 3 * * *', () =>
      this.services.media.uncacheRemote(new Date(this.ctx.now() - REMOTE_MEDIA_CACHE_MS).toISOString()),
    );
  }

  /**
   * Daemon only (not the admin tool): Web Push delivery, confirmation mail for new sign-ups, and
   * media left half-processed by a stop processed again. Returns the stop.
   */
  async startBackgroundWork(): Promise<() => Promise<void>> {
    const services = this.services;
    const { config } = this.ctx;
    const outbound = new PeerClient({
      allowPrivate: config.federationAllowPrivate,
      userAgent: `Nestbox/${VERSION} (+${config.baseUrl}/)`,
    });
    const push = new PushDelivery(
      this.ctx,
      new PushRepo(this.ctx),
      services.notifications,
      () => services.vapid,
      outbound,
    );
    push.start();
    const links = new LinkVerifier({
      accounts: services.accounts,
      events: this.ctx.events,
      fetchPage: (url, maxBytes, timeoutMs) => outbound.getBytes(url, maxBytes, timeoutMs, ACCEPT_PAGE),
      log: this.ctx.log.child({ component: 'profile-links' }),
      now: this.ctx.now,
    });
    links.start();
    const mail = services.emails;
    this.ctx.events.on(mail, 'account.created', ({ accountId }) => {
      mail
        .onAccountCreated(accountId)
        .catch((error) => this.ctx.log.warn('confirmation mail failed', { error: (error as Error).message }));
    });
    await services.media.resume();
    return async () => {
      this.ctx.events.removeListeners(mail);
      await push.stop();
      await links.stop();
      outbound.close();
    };
  }

  /** The streaming server on its own port; returns it (other listeners serve it too) and its stop. */
  async startStreaming(
    host: string,
    port: number,
  ): Promise<{ port: number; server: StreamingServer; stop: () => Promise<void> }> {
    const hub = new StreamHub(
      this.ctx,
      this.services.renderer,
      this.services.notifications,
      this.services.conversations,
      this.services.statuses.visibility,
    );
    hub.start();
    const server = new StreamingServer({
      host,
      port,
      publicPreview: this.ctx.config.publicPreview,
      resolve: this.services.oauth.resolve,
      hub,
      log: this.ctx.log.child({ component: 'streaming' }),
    });
    const address = await server.start();
    return {
      port: address.port,
      server,
      stop: async () => {
        hub.stop();
        await server.stop();
      },
    };
  }

  counts(): Promise<InstanceCounts> {
    return this.services.instance.counts();
  }

  async close(): Promise<void> {
    await this.hasher.close();
    await this.ctx.reader.close();
  }
}

/** Later ids must stay above every stored one, even if the clock went back across a restart. */
async function observeStoredIds(ctx: SocialContext): Promise<void> {
  for (const id of await new StoredIdsRepo(ctx.reader).highestIds()) ctx.ids.observe(id);
}
