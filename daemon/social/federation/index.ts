/**
 * Federation: ActivityPub with HTTP signatures. Builds the peer client, the actor and status
 * stores, the durable delivery queue, the outbound listener on the social event bus and the
 * inbound handlers; mounts discovery, actor, status and inbox routes; offers `resolve()` to search.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Config } from '../../config.js';
import type { HttpServer } from '../../http/server.js';
import type { Social } from '../index.js';
import type { FederationContext } from './context.js';
import { LocalActors } from './actors/local.js';
import { actorRoutes } from './actors/routes.js';
import { discoveryRoutes } from './webfinger/routes.js';
import { DeliveryQueue } from './delivery/queue.js';
import { Outbound } from './delivery/outbound.js';
import type { OnlineSignal } from './delivery/online.js';
import type { Resolved } from './fetch/resolver.js';
import type { RemoteLookups } from './fetch/lookups.js';
import type { FederationPeers } from './peers.js';
import { AccountMoves } from './actors/moves.js';
import { moveRoutes } from './actors/move-routes.js';
import { RemoteMediaCache } from './fetch/media-cache.js';
import { RequestSigners } from './signatures/signer.js';
import { lazy } from '../../lib/on-first-use.js';

export interface FederationOptions {
  /** Opened with `peers`: its services hold the remote lookups federation shares. */
  social: Social;
  peers: FederationPeers;
  config: Config;
  /** Deliveries run only while this says online (DeviceState `connectivity` = connected). */
  online: OnlineSignal;
}

export class Federation {
  readonly queue: DeliveryQueue;
  readonly outbound: Outbound;
  readonly moves: AccountMoves;
  readonly mediaCache: RemoteMediaCache;
  private readonly lookups: RemoteLookups;
  private readonly router = new Router();

  constructor(
    private readonly fed: FederationContext,
    lookups: RemoteLookups,
    online: OnlineSignal,
  ) {
    const local = new LocalActors(fed);
    const { actors: remote, statuses } = lookups;
    this.queue = new DeliveryQueue({
      db: fed.social.db,
      client: fed.client,
      log: fed.log.child({ component: 'delivery' }),
      online,
      signingKey: (accountId) => (accountId === null ? fed.instanceActor.signingKey() : local.signingKey(accountId)),
    });
    this.outbound = new Outbound(fed, this.queue, local);
    this.moves = new AccountMoves(fed, remote, this.outbound);
    const signers = new RequestSigners(fed, remote);
    // Loaded with the first activity a peer delivers: a box may go long without one.
    const receiver = lazy('the federation inbox', async () => {
      const [{ InboxHandlers }, { InboxReceiver }] = await Promise.all([
        import('./inbox/handlers.js'),
        import('./inbox/receive.js'),
      ]);
      return new InboxReceiver(
        fed,
        remote,
        new InboxHandlers(fed, remote, statuses, this.outbound),
        this.queue,
        signers,
      );
    });
    this.lookups = lookups;
    this.mediaCache = new RemoteMediaCache(fed);
    discoveryRoutes(this.router, fed, local);
    actorRoutes(this.router, fed, local, signers);
    for (const path of ['/inbox', '/users/:username/inbox'])
      this.router.post(path, async (ctx) => (await receiver()).receive(ctx));
    moveRoutes(this.router, fed, this.moves);
  }

  static create({ social, peers, config, online }: FederationOptions): Federation {
    const lookups = social.services.remote;
    if (!lookups) throw new Error('the social instance was opened without federation peers');
    const fed: FederationContext = {
      ...peers,
      social: social.ctx,
      services: social.services,
      baseUrl: config.baseUrl,
      localDomain: social.ctx.localDomain,
    };
    return new Federation(fed, lookups, online);
  }

  /** Mounts the routes (before the server listens; before the social API's catch-alls). */
  mount(http: Pick<HttpServer, 'use'>): void {
    http.use(this.router.routes());
    http.use(this.router.allowedMethods() as unknown as Middleware);
  }

  async start(): Promise<void> {
    this.outbound.start();
    this.mediaCache.start();
    await this.queue.start();
  }

  /** Stops sending; what is queued stays in SQLite for the next start. */
  async stop(): Promise<void> {
    await this.queue.stop();
  }

  /**
   * Stops turning local actions into queued deliveries. Call it after the HTTP server has
   * drained, so the requests still finishing during shutdown have their deliveries queued.
   */
  async stopListening(): Promise<void> {
    this.outbound.stop();
    await this.outbound.drained();
    await this.mediaCache.stop();
    this.fed.client.close();
  }

  /** Resolves once every local action so far has its deliveries written to the queue. */
  settled(): Promise<void> {
    return this.outbound.settled();
  }

  /** For search with resolve=true: an address or URL fetched over ActivityPub. */
  resolve(query: string): Promise<Resolved> {
    return this.lookups.resolve(query);
  }
}

/**
 * Mounted before the API routes: a write request is answered only once the deliveries it caused
 * are in the queue, so an action the client saw succeed survives a power cut right after.
 */
export function deliveriesQueuedBeforeAnswer(federation: () => Federation | undefined): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') await federation()?.settled();
  };
}
