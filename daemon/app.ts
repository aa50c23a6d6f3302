/**
 * Composition root: builds every subsystem from the config, starts them in the documented order
 * (database → device state → coprocessor link → connectivity → HTTP → MQTT → jobs → READY=1) and
 * stops them in reverse. A subsystem that cannot reach its outside party reports itself degraded
 * and keeps retrying; it never holds back READY=1.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from './config.js';
import type { Logger } from './log/logger.js';
import { openDatabase, ping, type Db } from './store/db.js';
import { migrate } from './store/migrate.js';
import { backupDatabase } from './store/backup.js';
import { MIB, StorageMonitor } from './storage/monitor.js';
import { isOutOfSpace } from './storage/out-of-space.js';
import { refreshStatistics } from './store/statistics.js';
import { DeviceState, initialDeviceState, summarizeDeviceState } from './device/state.js';
import { Health } from './lifecycle/health.js';
import { createNotifier, type Notifier } from './lifecycle/systemd.js';
import { Watchdog } from './lifecycle/watchdog.js';
import { Jobs } from './lifecycle/jobs.js';
import { HttpServer } from './http/server.js';
import { healthRouter } from './http/health-route.js';
import { VERSION } from './version.js';
import type { DeviceCommands } from './device/commands.js';
import type { MqttBridge } from './mqtt/bridge.js';
import { settingsMemory } from './mqtt/memory.js';
import type { CoprocClientApi } from './coproc/api.js';
import type { TokenResolver } from './http/auth.js';
import { NetworksRepo } from './connectivity/networks-repo.js';
import { startConnectivitySubsystem, type ConnectivityParts } from './connectivity/subsystem.js';
import { mountConnectivityWeb } from './web/mount.js';
import { openCoprocLink } from './coproc/link.js';
import type { CoprocClient } from './coproc/client.js';
import type { Simulator } from './coproc/sim/index.js';
import { Social } from './social/index.js';
import { watchInstanceCounts } from './social/instance-counts.js';
import { Federation, deliveriesQueuedBeforeAnswer } from './social/federation/index.js';
import { deviceOnline } from './social/federation/delivery/online.js';
import { TITLE as INSTANCE_TITLE } from './social/instance/serialize.js';
import type { NetworkLayer } from './network/index.js';

export interface AppOptions {
  config: Config;
  log: Logger;
  /** The process environment: systemd's NOTIFY_SOCKET and WATCHDOG_USEC come from here. */
  env: NodeJS.ProcessEnv;
}

/** How long after the link opens the daemon first asks the coprocessor something. */
const PROBE_DELAY_MS = 1000;
const PROBE_TIMEOUT_MS = 2000;

type Stopper = { name: string; stop: () => Promise<void> | void };

export class App {
  readonly health = new Health();
  readonly notifier: Notifier;
  db!: Db;
  device!: DeviceState;
  http!: HttpServer;
  jobs!: Jobs;
  storage!: StorageMonitor;
  /** What MQTT and the web may ask of the device; the connectivity step sets it. */
  commands: DeviceCommands | null = null;
  mqtt: MqttBridge | null = null;
  networks!: NetworksRepo;
  /** Set by startConnectivity(), over the coprocessor link's client. */
  connectivity: ConnectivityParts | null = null;
  /** The coprocessor link; the connectivity manager builds on it. */
  coproc!: CoprocClient;
  /** The embedded simulator when `coproc` is `sim` (its scenario controls), null otherwise. */
  simulator: Simulator | null = null;
  social!: Social;
  federation?: Federation;
  /** The network layer when NESTBOX_NETWORK=on. */
  network: NetworkLayer | null = null;
  private refreshInstanceCounts: () => Promise<void> = async () => undefined;
  httpUrl = '';
  private readonly stoppers: Stopper[] = [];
  private stopping: Promise<void> | null = null;

  constructor(private readonly options: AppOptions) {
    this.notifier = createNotifier(options.env, options.log.child({ component: 'systemd' }));
  }

  get config(): Config { return this.options.config; }
  get log(): Logger { return this.options.log; }

  async start(): Promise<void> {
    const { config, log } = this;
    const startedAt = Date.now();
    await this.startDatabase();
    this.device = new DeviceState(initialDeviceState(VERSION, describeTransport(config)));
    this.device.on('change', () => this.reportStatus());
    this.health.on('change', () => this.reportStatus());
    await this.startStorageMonitor();
    this.health.set('mqtt', { status: 'off', detail: config.mqttUrl ? undefined : 'not configured' });
    if (config.network === 'off') this.health.set('network', { status: 'off', address: null, detail: 'NESTBOX_NETWORK is off: interfaces are left alone' });
    this.networks = new NetworksRepo(this.db);
    this.startCoprocessor();
    await this.startConnectivity(this.coproc);

    await this.startHttp(async () => {
      this.http.use(deliveriesQueuedBeforeAnswer(() => this.federation));
      await this.startSocial();
      this.mountFederation();
    });
    await this.startFederation();
    await this.startMqtt();
    this.startJobs();
    this.social.scheduleJobs(this.jobs);
    // The admin tool writes from its own process, where the bus does not reach: catch up each minute.
    this.jobs.add('instance-counts', '* * * * *', () => this.refreshInstanceCounts());
    this.startWatchdog();

    await this.notifier.ready(this.statusLine());
    log.info('ready', { url: this.httpUrl, ms: Date.now() - startedAt, version: VERSION });
  }

  private async startDatabase(): Promise<void> {
    const log = this.log.child({ component: 'store' });
    const filename = join(this.config.dataDir, 'nestbox.sqlite3');
    this.db = openDatabase({ filename, synchronous: this.config.sqliteSynchronous });
    this.onStop('database', () => this.db.destroy());
    const { applied } = await migrate(this.db);
    if (applied.length) log.info('migrations applied', { migrations: applied });
    log.debug('statistics refreshed', { ms: await refreshStatistics(this.db) });
    this.health.set('database', { status: 'ok' });
  }

  /** Free space of the data disk into DeviceState and /healthz; failed writes make it look at once. */
  private async startStorageMonitor(): Promise<void> {
    this.storage = new StorageMonitor({
      dir: this.config.dataDir, minFreeBytes: this.config.storageMinFreeMb * MIB, device: this.device,
      reportHealth: (health) => this.health.set('storage', health), log: this.log.child({ component: 'storage' }),
    });
    this.onStop('storage', () => this.storage.stop());
    await this.storage.start();
  }

  /** Connectivity over the link's client: state machine, saved networks, setup AP, captive DNS. */
  async startConnectivity(client: CoprocClientApi): Promise<void> {
    const network = await this.startNetworkLayer();
    const { connectivity, stop } = await startConnectivitySubsystem({
      client, config: this.config, db: this.db, device: this.device, networks: this.networks, station: network?.station ?? null,
      log: this.log.child({ component: 'connectivity' }),
      health: (health) => this.health.set('connectivity', health),
    });
    this.connectivity = connectivity;
    this.commands = connectivity.commands;
    this.onStop('connectivity', stop);
  }

  /**
   * The network layer (NESTBOX_NETWORK=on): the station's DHCP client, the setup AP's address,
   * DHCP server, captive DNS and port-80 portal, mDNS. Stopped after the connectivity manager.
   */
  private async startNetworkLayer(): Promise<NetworkLayer | null> {
    if (this.config.network === 'off') return null;
    // Loaded only when on: a developer's machine never pays for the mDNS responder.
    const { NetworkLayer } = await import('./network/index.js');
    const network = new NetworkLayer({
      config: this.config, device: this.device, log: this.log.child({ component: 'network' }), title: INSTANCE_TITLE,
      health: (health) => this.health.set('network', health),
      listen: (host, port) => {
        if (!this.http) throw new Error('the HTTP server has not started yet');
        return this.http.listenAlso(host, port);
      },
    });
    this.network = network;
    this.onStop('network', () => network.stop());
    network.start();
    return network;
  }

  /** Owner tokens for the appliance API: the social instance's OAuth store, once it has started. */
  private resolveToken: TokenResolver = async () => null;

  private mountConnectivityRoutes(): void {
    mountConnectivityWeb(this.http, {
      device: this.device, networks: () => this.networks, connectivity: () => this.connectivity,
      resolveToken: (token) => this.resolveToken(token), baseUrl: this.config.baseUrl, httpHost: this.config.httpHost,
      httpPort: this.config.httpPort, setupApAddress: this.config.setupApAddress,
      setupPortalPort: this.config.network === 'on' ? 80 : this.config.httpPort,
    });
  }

  /**
   * Opens the link to the coprocessor (reopening by itself when the device comes and goes) and
   * reports it: health component `coprocessor` and DeviceState `coprocessor.link`. Never waits for
   * the device: a missing or silent one leaves the component degraded.
   */
  private startCoprocessor(): void {
    const { client, simulator } = openCoprocLink(this.config.coproc, {
      log: this.log,
      sim: { timeScale: this.config.coprocTimeScale, scenario: this.config.simScenario },
    });
    this.coproc = client;
    this.simulator = simulator;
    this.onStop('coprocessor', () => client.close());
    this.health.set('coprocessor', { status: 'starting', detail: `opening ${client.description}` });
    let probe: NodeJS.Timeout | null = null;
    const answered = () => this.health.set('coprocessor', { status: 'ok' });
    const silent = () => this.health.set('coprocessor', { status: 'degraded', detail: 'the coprocessor does not answer' });
    client.on('link', ({ up, reason }) => {
      this.device.update({ coprocessor: { link: up ? 'up' : 'down' } });
      if (probe) clearTimeout(probe);
      if (!up) {
        this.health.set('coprocessor', { status: 'degraded', detail: `link down${reason ? `: ${reason}` : ''}` });
        return;
      }
      this.health.set('coprocessor', { status: 'starting', detail: 'waiting for the coprocessor to answer' });
      // Let a device that is booting announce itself before asking it anything.
      probe = setTimeout(() => {
        client.call('getMode', {}, { timeoutMs: PROBE_TIMEOUT_MS }).then(answered, (error) => { if (error.kind === 'timeout') silent(); });
      }, PROBE_DELAY_MS);
    });
    client.on('devInit', answered);
    client.on('answering', ({ answering }) => (answering ? answered() : silent()));
    this.onStop('coprocessor probe', () => { if (probe) clearTimeout(probe); });
  }

  private async startHttp(mountSocial: () => Promise<void>): Promise<void> {
    const log = this.log.child({ component: 'http' });
    this.http = new HttpServer({ host: this.config.httpHost, port: this.config.httpPort, log, onOutOfSpace: () => this.storage.outOfSpace() });
    // /healthz looks at the free space too (one statfs): a monitor polling it sees it as it is now.
    this.http.use(healthRouter(this.health, async () => { await Promise.all([this.checkDatabase(), this.storage.check()]); }).routes());
    // The setup portal first: in setup mode it answers captive-portal probes for any host.
    this.mountConnectivityRoutes();
    await mountSocial();
    const address = await this.http.start();
    this.onStop('http', () => this.http.stop());
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.httpUrl = `http://${host}:${address.port}`;
    this.health.set('http', { status: 'ok' });
    log.info(`Nestbox is listening on ${this.httpUrl}`, { url: this.httpUrl, base_url: this.config.baseUrl });
  }

  /** The MQTT bridge connects in the background: a broker that is down never holds back READY=1. */
  private async startMqtt(): Promise<void> {
    const { config } = this;
    if (!config.mqttUrl) return;
    // Loaded only when configured: the MQTT client costs memory a box without a broker need not pay.
    const { MqttBridge } = await import('./mqtt/bridge.js');
    const bridge = new MqttBridge({
      device: this.device,
      commands: this.commands,
      broker: {
        url: config.mqttUrl, username: config.mqttUsername, password: config.mqttPassword,
        protocolVersion: config.mqttProtocol, clientId: config.mqttClientId,
        caFile: config.mqttCaFile, certFile: config.mqttCertFile, keyFile: config.mqttKeyFile,
      },
      prefix: config.mqttPrefix,
      discoveryPrefix: config.haDiscovery === '' ? null : config.haDiscovery,
      memory: settingsMemory(this.db),
      log: this.log.child({ component: 'mqtt' }),
      version: VERSION,
      configurationUrl: config.baseUrl,
      refreshSchedule: config.mqttRefreshSchedule,
      setupPassphrase: config.mqttPublishSetupPassphrase ? () => this.connectivity?.portal.passphrase ?? config.setupPassphrase : null,
      reportHealth: (health) => this.health.set('mqtt', health),
    });
    this.mqtt = bridge;
    this.onStop('mqtt', () => bridge.stop());
    await bridge.start();
  }

  /** The social instance: its routes on the shared server, its counts into DeviceState.instance. */
  private async startSocial(): Promise<void> {
    const log = this.log.child({ component: 'social' });
    this.social = await Social.open({ db: this.db, filename: join(this.config.dataDir, 'nestbox.sqlite3'), config: this.config, log });
    this.onStop('social', () => this.social.close());
    this.resolveToken = this.social.services.oauth.resolve;
    this.social.mount(this.http);
    const counts = watchInstanceCounts(this.social.events, () => this.social.counts(), (instance) => {
      if (this.device.update({ instance }).length) log.debug('instance counts', { ...instance });
    }, log);
    this.onStop('social-counts', () => counts.stop());
    this.refreshInstanceCounts = () => counts.refresh();
    await counts.refresh();
    this.health.set('social', { status: 'ok' });
    await this.startStreaming();
    this.onStop('social-background', await this.social.startBackgroundWork());
  }

  /** The streaming server (its own port); a port in use leaves it degraded, never stops start-up. */
  private async startStreaming(): Promise<void> {
    const log = this.log.child({ component: 'streaming' });
    try {
      const streaming = await this.social.startStreaming(this.config.httpHost, this.config.streamingPort);
      this.onStop('streaming', streaming.stop);
      this.health.set('streaming', { status: 'ok' });
      log.info('streaming server listening', { port: streaming.port });
    } catch (error) {
      this.health.set('streaming', { status: 'degraded', detail: (error as Error).message });
      log.error('streaming server did not start', { error });
    }
  }

  /** ActivityPub: discovery, actors, inboxes on the shared server (mounted before it listens). */
  private mountFederation(): void {
    // Deliveries wait while the box is offline (connectivity is not `connected`) and resume after.
    const online = deviceOnline(this.device, this.config.network === 'on');
    // The box's resolv.conf is not the network layer's to rewrite: peers' names go to the lease's DNS servers.
    const dnsServers = this.config.network === 'on' ? () => this.device.get().network?.dns ?? null : undefined;
    this.federation = Federation.create({ social: this.social, config: this.config, log: this.log.child({ component: 'federation' }), online, dnsServers });
    this.federation.mount(this.http);
    // Registered before the HTTP server's stop, so it runs after the server has drained.
    const federation = this.federation;
    this.onStop('federation-events', () => federation.stopListening());
  }

  /** The delivery queue resumes what was queued before the last stop. */
  private async startFederation(): Promise<void> {
    const federation = this.federation!;
    await federation.start();
    this.onStop('federation', () => federation.stop());
    this.health.set('federation', { status: 'ok' });
  }

  private startJobs(): void {
    this.jobs = new Jobs(this.log.child({ component: 'jobs' }));
    this.onStop('jobs', () => this.jobs.stop());
    const backupLog = this.log.child({ component: 'backup' });
    this.jobs.add('database-statistics', '47 */6 * * *', () => refreshStatistics(this.db));
    this.jobs.add('backup', this.config.backupSchedule, async () => {
      const database = join(this.config.dataDir, 'nestbox.sqlite3');
      // A copy as large as the database must not take the space the database itself needs.
      const needed = (await stat(database)).size + this.config.storageMinFreeMb * MIB;
      const free = await this.storage.free();
      if (free < needed) {
        backupLog.warn('backup skipped: not enough free space', { free_bytes: free, needed_bytes: needed });
        return;
      }
      try {
        const result = await backupDatabase(this.db, join(this.config.dataDir, 'backups'), this.config.backupKeep);
        backupLog.info('database backed up', { path: result.path, bytes: result.bytes, removed: result.removed.length });
      } catch (error) {
        if (isOutOfSpace(error)) this.storage.outOfSpace();
        throw error;
      }
    });
  }

  private startWatchdog(): void {
    const watchdog = new Watchdog({
      env: this.options.env,
      ping: () => this.notifier.watchdog(),
      databaseAnswers: () => ping(this.db),
      log: this.log.child({ component: 'watchdog' }),
    });
    if (watchdog.start()) this.onStop('watchdog', () => watchdog.stop());
  }

  private async checkDatabase(): Promise<void> {
    const answers = await ping(this.db);
    this.health.set('database', answers ? { status: 'ok' } : { status: 'degraded', detail: 'database does not answer' });
  }

  /** The one-line summary systemd shows in `systemctl status`. */
  statusLine(): string {
    const device = this.device ? summarizeDeviceState(this.device.get()) : 'starting';
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
    // The notify helper is a child process: wait for it, or STOPPING=1 is lost with us.
    await stopped;
    await this.notifier.flush();
  }
}

function describeTransport(config: Config): string {
  return config.coproc.kind === 'sim' ? 'sim' : `${config.coproc.kind}:${config.coproc.path}`;
}
