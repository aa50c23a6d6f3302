/**
 * The social side of the daemon: the instance, federation, the streaming server, the owner's web
 * routes and their jobs, built from one base URL. The reachability switch moves the base URL
 * without a restart: this side alone is stopped and built again, behind a route slot the HTTP
 * server keeps, while the device side (link, connectivity, network layer, MQTT, the listeners)
 * runs on untouched.
 */
import { join } from 'node:path';
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import type { Config } from './config.js';
import type { Logger } from './log/logger.js';
import type { Db } from './store/db.js';
import type { DeviceState } from './device/state.js';
import type { Health } from './lifecycle/health.js';
import { Jobs } from './lifecycle/jobs.js';
import { databaseOutage } from './store/outage.js';
import type { HttpServer } from './http/server.js';
import { NESTED_MIDDLEWARE } from './http/route-table.js';
import type { NetworksRepo } from './connectivity/networks-repo.js';
import type { DeviceSide } from './connectivity/device-side.js';
import { loadSetupPassphrase } from './connectivity/setup-identity.js';
import { mountConnectivityWeb, mountInstanceWeb } from './web/mount.js';
import type { ReachabilityCheck } from './social/onboarding/reachability.js';
import type { ReachabilityFlow } from './reachability/flow.js';
import { Social } from './social/index.js';
import { watchInstanceCounts } from './social/instance-counts.js';
import { Federation, deliveriesQueuedBeforeAnswer } from './social/federation/index.js';
import { deviceOnline, SwitchableOnline, type OnlineSignal } from './social/federation/delivery/online.js';
import { federationPeers } from './social/federation/peers.js';
import { StreamingSlot } from './social/streaming/slot.js';
import { gateRouter } from './http/router-gate.js';

/** Middleware the HTTP server runs through once; what it holds can be swapped while it listens. */
export class RouteSlot {
  private current: Middleware = async (_ctx, next) => {
    await next();
  };

  private stack: Middleware[] = [];

  /** The side's streaming server on the other listeners (HTTPS): same paths, same upgrade. */
  readonly streaming = new StreamingSlot();

  readonly middleware: Middleware = Object.assign(
    async (ctx: Parameters<Middleware>[0], next: Parameters<Middleware>[1]) => {
      await this.current(ctx, next);
    },
    // The route table (logged at start-up, walked by tests) sees the routes of the side in place.
    { [NESTED_MIDDLEWARE]: () => this.stack },
  );

  /** While the side is rebuilt: a clear answer instead of a half-stopped instance. */
  pause(): void {
    this.current = (ctx) => {
      ctx.status = 503;
      ctx.set('retry-after', '1');
      ctx.body = { error: 'the instance is moving to its new public address; try again in a second' };
      return Promise.resolve();
    };
  }

  /** Fills a new stack with `mount`, then puts it in place in one step. */
  fill(mount: (target: Pick<HttpServer, 'use'>) => void): void {
    const stack: Middleware[] = [];
    mount({ use: (middleware) => stack.push(gateRouter(middleware) as Middleware) });
    this.stack = stack;
    this.current = compose(stack);
  }
}

export interface SocialSideOptions {
  db: Db;
  log: Logger;
  device: DeviceState;
  health: Health;
  networks: NetworksRepo;
  connectivity: DeviceSide;
  check: ReachabilityCheck;
  /** Null when the box has no HTTPS port. */
  reachability: ReachabilityFlow | null;
}

type Stop = { name: string; stop: () => Promise<void> | void };

export class SocialSide {
  private readonly stops: Stop[] = [];
  private jobs: Jobs | null = null;

  private constructor(
    private readonly options: SocialSideOptions,
    readonly config: Config,
  ) {}

  /** Builds the side for `config` (its base URL), mounts its routes into `slot` and starts it. */
  static async start(options: SocialSideOptions, config: Config, slot: RouteSlot): Promise<SocialSide> {
    const side = new SocialSide(options, config);
    try {
      await side.build(slot);
    } catch (error) {
      await side.stop();
      throw error;
    }
    return side;
  }

  private async build(slot: RouteSlot): Promise<void> {
    const { db, device, health } = this.options;
    const config = this.config;
    const log = this.options.log.child({ component: 'social' });
    const dnsServers = config.network === 'on' ? () => device.get().network?.dns ?? null : undefined;
    const peers = federationPeers({
      db,
      config,
      log: this.options.log.child({ component: 'federation' }),
      dnsServers,
    });
    const social = await Social.open({ db, filename: join(config.dataDir, 'nestbox.sqlite3'), config, log, peers });
    this.onStop('social', () => social.close());
    const federation = Federation.create({ social, peers, config, online: this.online() });
    const setupKey = await this.setupKey();
    slot.fill((http) => {
      this.mountOwnerWeb(http, social, setupKey);
      http.use(deliveriesQueuedBeforeAnswer(() => federation));
      social.mount(http);
      federation.mount(http);
    });
    this.onStop('federation-events', () => federation.stopListening());
    const counts = watchInstanceCounts(
      social.events,
      () => social.counts(),
      (instance) => {
        if (device.update({ instance }).length) log.debug('instance counts', { ...instance });
      },
      log,
    );
    this.onStop('social-counts', () => counts.stop());
    await counts.refresh();
    health.set('social', { status: 'ok' });
    await this.startStreaming(social, slot);
    this.onStop('social-background', await social.startBackgroundWork());
    await federation.start();
    this.onStop('federation', () => federation.stop());
    health.set('federation', { status: 'ok' });
    const jobs = new Jobs(this.options.log.child({ component: 'jobs' }), { outage: databaseOutage(this.options.db) });
    this.onStop('social-jobs', () => jobs.stop());
    social.scheduleJobs(jobs);
    // The admin tool writes from its own process, where the bus does not reach: catch up each minute.
    jobs.add('instance-counts', '* * * * *', () => counts.refresh());
    this.jobs = jobs;
  }

  /** Schedules the side's periodic jobs: after READY=1 at start-up, so none runs during the start. */
  startJobs(): void {
    this.jobs?.start();
  }

  /**
   * Deliveries wait while the box is offline (connectivity is not `connected`) and resume after;
   * without a box the server's own network is the operating system's, taken as always there.
   */
  private online(): OnlineSignal {
    const { connectivity, device } = this.options;
    if (connectivity.kind === 'none') return new SwitchableOnline(true);
    return deviceOnline(device, this.config.network === 'on');
  }

  /**
   * What proves holding the instance when its owner is created away from the setup network: the
   * setup AP's passphrase, which an instance without a box keeps all the same (the admin tool prints it).
   */
  private async setupKey(): Promise<() => string | null> {
    const { connectivity, db } = this.options;
    if (connectivity.kind === 'box') return () => connectivity.portal.passphrase;
    const passphrase = await loadSetupPassphrase(db, this.config.setupPassphrase);
    return () => passphrase;
  }

  /** The owner's appliance API and pages; owner tokens come from the instance's OAuth store. */
  private mountOwnerWeb(http: Pick<HttpServer, 'use'>, social: Social, setupKey: () => string | null): void {
    const { config } = this;
    const { connectivity } = this.options;
    const resolveToken = social.services.oauth.resolve;
    mountConnectivityWeb(http, {
      device: this.options.device,
      networks: this.options.networks,
      connectivity,
      resolveToken,
      ownerNeeded: () => social.services.onboarding.ownerNeeded(),
      baseUrl: config.baseUrl,
      httpHost: config.httpHost,
      httpPort: config.httpPort,
      setupApAddress: config.setupApAddress,
      setupPortalPort: config.network === 'on' ? 80 : config.httpPort,
    });
    mountInstanceWeb(http, {
      resolveToken,
      baseUrl: config.baseUrl,
      setupApAddress: config.setupApAddress,
      setupKey,
      onboarding: social.services.onboarding,
      invites: social.services.invites,
      instanceSettings: {
        identity: social.services.instance.identity,
        db: social.ctx.db,
        runningBaseUrl: config.baseUrl,
        // The one place the box reaches for its own public address (tests give loopback ones).
        reachability: this.options.check,
      },
      reachability: this.options.reachability,
      log: this.options.log.child({ component: 'onboarding' }),
    });
  }

  /**
   * The streaming server (its own port, and the HTTPS listener's streaming paths through the slot);
   * a port in use leaves it degraded, never stops start-up.
   */
  private async startStreaming(social: Social, slot: RouteSlot): Promise<void> {
    const log = this.options.log.child({ component: 'streaming' });
    try {
      const streaming = await social.startStreaming(this.config.httpHost, this.config.streamingPort);
      slot.streaming.fill(streaming.server);
      this.onStop('streaming', async () => {
        slot.streaming.empty(streaming.server);
        await streaming.stop();
      });
      this.options.health.set('streaming', { status: 'ok' });
      log.info('streaming server listening', { port: streaming.port });
    } catch (error) {
      this.options.health.set('streaming', { status: 'degraded', detail: (error as Error).message });
      log.error('streaming server did not start', { error });
    }
  }

  private onStop(name: string, stop: Stop['stop']): void {
    this.stops.push({ name, stop });
  }

  /** Stops what was started, in reverse; the database and the device side stay. */
  async stop(): Promise<void> {
    for (const { name, stop } of this.stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        this.options.log.warn('subsystem did not stop cleanly', { subsystem: name, error });
      }
    }
  }
}
