/**
 * Composition root: builds every subsystem from the config, starts them in the documented order
 * (database → device state → coprocessor link → connectivity → HTTP → MQTT → jobs → READY=1) and
 * stops them in reverse. A subsystem that cannot reach its outside party reports itself degraded
 * and keeps retrying; it never holds back READY=1.
 */
import { defaultBaseUrl, describeCoproc, type Config, type CoprocTarget } from './config.js';
import type { Logger } from './log/logger.js';
import { ping, type Db } from './store/db.js';
import { openStore, serverWatch } from './store/open.js';
import { dialectOf } from './store/dialect.js';
import { databaseOutage } from './store/outage.js';
import type { ServerWatch } from './store/server-watch.js';
import { migrate } from './store/migrate.js';
import { changeBaseUrl, settleDaemonBaseUrl } from './store/base-url.js';
import { ChallengeResponder } from './reachability/challenges.js';
import { publicHttp } from './reachability/public-http.js';
import type { Reachability } from './reachability/index.js';
import { backupJob } from './storage/backup-job.js';
import { MIB, StorageMonitor } from './storage/monitor.js';
import { refreshStatistics } from './store/statistics.js';
import { DeviceState, initialDeviceState, NO_COPROCESSOR, summarizeDeviceState, withoutBox } from './device/state.js';
import { Health } from './lifecycle/health.js';
import { createNotifier, type Notifier } from './lifecycle/systemd.js';
import { Watchdog } from './lifecycle/watchdog.js';
import { Jobs } from './lifecycle/jobs.js';
import { HttpServer } from './http/server.js';
import { healthRouter } from './http/health-route.js';
import { VERSION } from './version.js';
import { settingsMemory } from './mqtt/memory.js';
import { NetworksRepo } from './connectivity/networks-repo.js';
import { startConnectivitySubsystem } from './connectivity/subsystem.js';
import { NO_DEVICE, type DeviceSide } from './connectivity/device-side.js';
import { ReachabilityCheck } from './social/onboarding/reachability.js';
import { openMonitoredLink } from './coproc/monitored-link.js';
import type { CoprocLink } from './coproc/link.js';
import { chipResetterFor } from './coproc/chip-reset.js';
import { TITLE as INSTANCE_TITLE } from './social/instance/serialize.js';
import type { NetworkLayer } from './network/index.js';
import { RouteSlot, SocialSide, type SocialSideOptions } from './social-side.js';

export interface AppOptions {
  config: Config;
  log: Logger;
  /** The process environment: systemd's NOTIFY_SOCKET and WATCHDOG_USEC come from here. */
  env: NodeJS.ProcessEnv;
}

type Stopper = { name: string; stop: () => Promise<void> | void };

/**
 * Each start step builds its part from the parts before it (passed in, never read back from a
 * field) and registers that part's stop; stops run in reverse.
 */
export class App {
  readonly health = new Health();
  readonly notifier: Notifier;
  private readonly device: DeviceState;
  private readonly stoppers: Stopper[] = [];
  /** The configuration with the instance's stored base URL, once the database is open. */
  private settled: Config | null = null;
  private stopping: Promise<void> | null = null;
  private readonly challenges = new ChallengeResponder();
  private readonly socialSlot = new RouteSlot();
  private socialOptions: SocialSideOptions | null = null;
  private social: SocialSide | null = null;
  private switching: Promise<void> = Promise.resolve();

  constructor(private readonly options: AppOptions) {
    this.notifier = createNotifier(options.env, options.log.child({ component: 'systemd' }));
    const initial = initialDeviceState(VERSION, describeCoproc(options.config.coproc));
    this.device = new DeviceState(options.config.coproc.kind === 'none' ? withoutBox(initial) : initial);
  }

  get config(): Config {
    return this.settled ?? this.options.config;
  }
  get log(): Logger {
    return this.options.log;
  }

  async start(): Promise<void> {
    const startedAt = Date.now();
    const db = await this.startDatabase();
    const watch = await this.watchDatabaseServer(db);
    const { config, log, device } = this;
    device.on('change', () => this.reportStatus());
    this.health.on('change', () => this.reportStatus());
    const storage = await this.startStorageMonitor();
    this.health.set('mqtt', { status: 'off', detail: config.mqttUrl ? undefined : 'not configured' });
    if (config.network === 'off')
      this.health.set('network', {
        status: 'off',
        address: null,
        detail: 'NESTBOX_NETWORK is off: interfaces are left alone',
      });
    const networks = new NetworksRepo(db);
    // Built here, listening only in the HTTP step: the network layer's port-80 portal shares its app.
    const http = new HttpServer({
      host: config.httpHost,
      port: config.httpPort,
      log: log.child({ component: 'http' }),
      onOutOfSpace: () => storage.outOfSpace(),
      serverLost: (error) => dialectOf(db).isServerLost(error),
      unstorableText: (error) => dialectOf(db).isUnstorableText(error),
      databaseBusy: (error) => dialectOf(db).isBusy(error),
    });
    const connectivity = await this.startDeviceSide(db, networks, http);
    const check = new ReachabilityCheck((url, init) => fetch(url, init));
    // Built before the owner's routes, which are handed the flow; it listens and runs after the HTTP step.
    const reachability = await this.buildReachability(db, http, check);
    // ACME challenges, redirects to https and HSTS come before any route.
    http.use(publicHttp(this.challenges, () => reachability?.flow.switchedName() ?? null));

    // /healthz looks at the free space too (one statfs): a monitor polling it sees it as it is now.
    http.use(
      healthRouter(this.health, async () => {
        await Promise.all([this.checkDatabase(db), storage.check()]);
      }).routes(),
    );
    // The setup portal, the owner's API, the instance and federation: rebuilt together on a switch.
    http.use(this.socialSlot.middleware);
    this.socialOptions = {
      db,
      log,
      device,
      health: this.health,
      networks,
      connectivity,
      check,
      reachability: reachability?.flow ?? null,
    };
    this.social = await SocialSide.start(this.socialOptions, config, this.socialSlot);
    this.onStop('social-side', () => this.social?.stop());
    const httpUrl = await this.startHttp(http);
    if (reachability) await this.startReachability(reachability);
    await this.startMqtt(db, connectivity, reachability);
    const jobs = this.startJobs(db, storage);
    this.startWatchdog(db, watch);

    await this.notifier.ready(this.statusLine());
    log.info('ready', { url: httpUrl, ms: Date.now() - startedAt, version: VERSION });
    jobs.start();
    this.social?.startJobs();
  }

  private async startDatabase(): Promise<Db> {
    const log = this.log.child({ component: 'store' });
    const db = await openStore(this.config, { announcesWrites: false });
    this.onStop('database', () => db.destroy());
    const { applied } = await migrate(db);
    if (applied.length) log.info('migrations applied', { migrations: applied });
    // Before any part reads it: links and ids are made from the instance's one base URL.
    this.settled = await settleDaemonBaseUrl(db, this.options.config, log);
    log.debug('statistics refreshed', { ms: await refreshStatistics(db) });
    this.health.set('database', { status: 'ok' });
    return db;
  }

  /**
   * A database server (PostgreSQL) lost after the start: `database` degraded while the watch
   * reconnects, ok once it is back; requests meanwhile answer 503 (HttpServer's `serverLost`).
   */
  private async watchDatabaseServer(db: Db): Promise<ServerWatch | null> {
    const watch = await serverWatch(db);
    if (!watch) return null;
    const log = this.log.child({ component: 'store' });
    watch.onChange((lost) => {
      if (lost) log.warn('the database server does not answer; reconnecting', { reason: lost });
      else log.info('the database server answers again');
      this.health.set(
        'database',
        lost ? { status: 'degraded', detail: `the server does not answer (${lost})` } : { status: 'ok' },
      );
    });
    this.onStop('database-watch', await watch.acquire());
    return watch;
  }

  /** Free space of the data disk into DeviceState and /healthz; failed writes make it look at once. */
  private async startStorageMonitor(): Promise<StorageMonitor> {
    const storage = new StorageMonitor({
      dir: this.config.dataDir,
      minFreeBytes: this.config.storageMinFreeMb * MIB,
      device: this.device,
      reportHealth: (health) => this.health.set('storage', health),
      log: this.log.child({ component: 'storage' }),
    });
    this.onStop('storage', () => storage.stop());
    await storage.start();
    return storage;
  }

  /**
   * The coprocessor link, then connectivity over its client: state machine, saved networks, setup
   * AP, captive DNS. An instance without a box (NESTBOX_COPROC=none) builds none of it: its health
   * components say so, and the outputs are handed the absence of a device.
   */
  private async startDeviceSide(db: Db, networks: NetworksRepo, http: HttpServer): Promise<DeviceSide> {
    const target = this.config.coproc;
    if (target.kind === 'none') {
      for (const component of ['coprocessor', 'connectivity', 'firmware_release', 'network'])
        this.health.set(component, { status: 'off', detail: NO_COPROCESSOR });
      return NO_DEVICE;
    }
    const link = this.startCoprocessor(target);
    const network = await this.startNetworkLayer(http);
    const { connectivity, stop } = await startConnectivitySubsystem({
      client: link.client,
      config: this.config,
      db,
      device: this.device,
      networks,
      station: network?.station ?? null,
      chipInterfaces: network,
      log: this.log.child({ component: 'connectivity' }),
      health: (health) => this.health.set('connectivity', health),
      releaseHealth: (health) => this.health.set('firmware_release', health),
      resetter: chipResetterFor(target, link, this.config.coprocResetCommand),
    });
    this.onStop('connectivity', stop);
    return connectivity;
  }

  /** The network layer (NESTBOX_NETWORK=on): DHCP client, setup AP, captive DNS, portal, mDNS; stopped after connectivity. */
  private async startNetworkLayer(http: HttpServer): Promise<NetworkLayer | null> {
    if (this.config.network === 'off') return null;
    // Loaded only when on: a developer's machine never pays for the mDNS responder.
    const { NetworkLayer } = await import('./network/index.js');
    const network = new NetworkLayer({
      config: this.config,
      device: this.device,
      log: this.log.child({ component: 'network' }),
      title: INSTANCE_TITLE,
      health: (health) => this.health.set('network', health),
      listen: (host, port) => http.listenAlso(host, port),
    });
    this.onStop('network', () => network.stop());
    network.start();
    return network;
  }

  /** The coprocessor link, reported in /healthz (coproc/monitored-link.ts); DeviceState hears of it from connectivity. */
  private startCoprocessor(target: CoprocTarget): CoprocLink {
    const { link, stop } = openMonitoredLink({
      target,
      config: this.config,
      log: this.log,
      health: (health) => this.health.set('coprocessor', health),
    });
    this.onStop('coprocessor', stop);
    return link;
  }

  /** Listens once every route is mounted; returns the URL it listens on. */
  private async startHttp(http: HttpServer): Promise<string> {
    const address = await http.start();
    this.onStop('http', () => http.stop());
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = `http://${host}:${address.port}`;
    this.health.set('http', { status: 'ok' });
    this.log
      .child({ component: 'http' })
      .info(`Nestbox is listening on ${url}`, { url, base_url: this.config.baseUrl });
    return url;
  }

  /**
   * The box on the internet: HTTPS listener, port mapping, dynamic DNS, certificates, and the switch
   * of the public address, after which the social side is built again. Not loaded without an HTTPS port.
   */
  private async buildReachability(db: Db, http: HttpServer, check: ReachabilityCheck): Promise<Reachability | null> {
    if (this.config.httpsPort === null) {
      this.health.set('reachability', { status: 'off', detail: 'no HTTPS port (NESTBOX_HTTPS_PORT is empty)' });
      return null;
    }
    const { buildReachability } = await import('./reachability/index.js');
    let handle: HttpServer['requestListener'] | null = null;
    return buildReachability({
      config: this.config,
      log: this.log.child({ component: 'reachability' }),
      challenges: this.challenges,
      lease: () => this.device.get().network,
      publish: (view) => this.device.update({ reachability: view }),
      health: (health) => this.health.set('reachability', health),
      check,
      // The app's handler exists once the HTTP server starts, which is before the HTTPS listener listens.
      requestListener: (req, res) => (handle ??= http.requestListener)(req, res),
      streaming: this.socialSlot.streaming,
      baseUrl: {
        current: () => this.config.baseUrl,
        switchTo: async (url) => {
          await changeBaseUrl(db, url);
          await this.rebuildSocialSide(db);
        },
      },
    });
  }

  /** Once the HTTP server listens: the HTTPS listener, then the flow's first cycle. */
  private async startReachability(reachability: Reachability): Promise<void> {
    this.onStop('reachability', () => reachability.stop());
    await reachability.start();
    // A new lease (or none) changes what the router is asked: run the steps again at once.
    this.device.on('change', ({ paths }) => {
      if (paths.includes('network')) reachability.flow.runSoon();
    });
  }

  /** The MQTT bridge connects in the background: a broker that is down never holds back READY=1. */
  private async startMqtt(db: Db, connectivity: DeviceSide, reachability: Reachability | null): Promise<void> {
    const { config } = this;
    if (!config.mqttUrl) return;
    // Loaded only when configured: the MQTT client costs memory a box without a broker need not pay.
    const { MqttBridge } = await import('./mqtt/bridge.js');
    const bridge = new MqttBridge({
      device: this.device,
      commands: connectivity.kind === 'box' ? connectivity.commands : null,
      broker: {
        url: config.mqttUrl,
        username: config.mqttUsername,
        password: config.mqttPassword,
        protocolVersion: config.mqttProtocol,
        clientId: config.mqttClientId,
        caFile: config.mqttCaFile,
        certFile: config.mqttCertFile,
        keyFile: config.mqttKeyFile,
      },
      prefix: config.mqttPrefix,
      discoveryPrefix: config.haDiscovery === '' ? null : config.haDiscovery,
      memory: settingsMemory(db),
      log: this.log.child({ component: 'mqtt' }),
      version: VERSION,
      dashboard: {
        // A switch to the public name is followed through DeviceState; without one, the box is at
        // its start-up base URL, or at home once the owner turns reachability off.
        baseUrl: reachability?.flow.switchedName()
          ? defaultBaseUrl(config.network, config.hostname, config.httpPort)
          : config.baseUrl,
        httpPort: config.httpPort,
        // The network layer announces <hostname>.local; without it the leased address is used.
        mdnsHostname: config.network === 'on' ? config.hostname : null,
      },
      machineIdPath: config.machineIdFile,
      refreshSchedule: config.mqttRefreshSchedule,
      setupPassphrase:
        config.mqttPublishSetupPassphrase && connectivity.kind === 'box'
          ? () => connectivity.portal.passphrase ?? config.setupPassphrase
          : null,
      reportHealth: (health) => this.health.set('mqtt', health),
    });
    this.onStop('mqtt', () => bridge.stop());
    await bridge.start();
  }

  private startJobs(db: Db, storage: StorageMonitor): Jobs {
    const jobs = new Jobs(this.log.child({ component: 'jobs' }), { outage: databaseOutage(db) });
    this.onStop('jobs', () => jobs.stop());
    jobs.add('database-statistics', '47 */6 * * *', () => refreshStatistics(db));
    jobs.add(
      'backup',
      this.config.backupSchedule,
      backupJob({
        db,
        dataDir: this.config.dataDir,
        minFreeMb: this.config.storageMinFreeMb,
        keep: this.config.backupKeep,
        storage,
        log: this.log.child({ component: 'backup' }),
      }),
    );
    return jobs;
  }

  private startWatchdog(db: Db, watch: ServerWatch | null): void {
    const watchdog = new Watchdog({
      env: this.options.env,
      ping: () => this.notifier.watchdog(),
      // A lost server is out of the process's hands and a restart would not bring it back: the
      // watch reconnects, and the daemon stays up to say so.
      databaseAnswers: async () => (await ping(db)) || watch?.lost != null,
      log: this.log.child({ component: 'watchdog' }),
    });
    if (watchdog.start()) this.onStop('watchdog', () => watchdog.stop());
  }

  private async checkDatabase(db: Db): Promise<void> {
    const answers = await ping(db);
    this.health.set(
      'database',
      answers ? { status: 'ok' } : { status: 'degraded', detail: 'database does not answer' },
    );
  }

  /** The one-line summary systemd shows in `systemctl status`. */
  statusLine(): string {
    const device = summarizeDeviceState(this.device.get());
    const report = this.health.report();
    const faults = Object.entries(report.components)
      .filter(([, health]) => health.status === 'degraded')
      .map(([name, health]) => `${name} degraded${health.detail ? ` (${health.detail})` : ''}`);
    return [device, ...faults].join('; ');
  }

  private reportStatus(): void {
    if (!this.stopping) void this.notifier.status(this.statusLine());
  }

  private onStop(name: string, stop: Stopper['stop']): void {
    this.stoppers.push({ name, stop });
  }

  /**
   * The stored base URL moved (the reachability switch): the social side is built again from it
   * while the device side and the listeners run on; meanwhile its routes answer 503.
   */
  private rebuildSocialSide(db: Db): Promise<void> {
    const rebuild = async () => {
      if (this.stopping || !this.socialOptions) return;
      const { config } = this.options;
      const unbound = { ...config, sources: { ...config.sources, baseUrl: undefined } };
      this.settled = await settleDaemonBaseUrl(db, unbound, this.log);
      this.log.info('rebuilding the social side with the new public address', { base_url: this.config.baseUrl });
      this.socialSlot.pause();
      const previous = this.social;
      this.social = null;
      await previous?.stop();
      this.social = await SocialSide.start(this.socialOptions, this.config, this.socialSlot);
      this.social.startJobs();
    };
    this.switching = this.switching.then(rebuild, rebuild);
    return this.switching;
  }

  /** Stops every started subsystem in reverse order; safe to call more than once. */
  stop(reason = 'stopping'): Promise<void> {
    this.stopping ??= this.stopAll(reason);
    return this.stopping;
  }

  private async stopAll(reason: string): Promise<void> {
    const stopped = this.notifier.stopping(reason);
    for (const { name, stop } of this.stoppers.splice(0).reverse()) {
      try {
        await stop();
      } catch (error) {
        this.log.warn('subsystem did not stop cleanly', { subsystem: name, error });
      }
    }
    // STOPPING=1 may go through systemd-notify, a child process: wait for it, or the message is lost with us.
    await stopped;
    await this.notifier.flush();
  }
}
