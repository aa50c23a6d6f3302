/**
 * Composition root: builds every subsystem from the config, starts them in the design's order
 * (database → device state → coprocessor link → connectivity → HTTP → MQTT → jobs → READY=1) and
 * stops them in reverse. A subsystem that cannot reach its outside party reports itself degraded
 * and keeps retrying; it never holds back READY=1.
 */
import { join } from 'node:path';
import type { Config } from './config.js';
import type { Logger } from './log/logger.js';
import { openDatabase, ping, type Db } from './store/db.js';
import { migrate } from './store/migrate.js';
import { backupDatabase } from './store/backup.js';
import { DeviceState, initialDeviceState, summarizeDeviceState } from './device/state.js';
import { Health } from './lifecycle/health.js';
import { createNotifier, type Notifier } from './lifecycle/systemd.js';
import { Watchdog } from './lifecycle/watchdog.js';
import { Jobs } from './lifecycle/jobs.js';
import { HttpServer } from './http/server.js';
import { healthRouter } from './http/health-route.js';
import { VERSION } from './version.js';
import { Social } from './social/index.js';

export interface AppOptions {
  config: Config;
  log: Logger;
  /** The process environment: systemd's NOTIFY_SOCKET and WATCHDOG_USEC come from here. */
  env: NodeJS.ProcessEnv;
}

type Stopper = { name: string; stop: () => Promise<void> | void };

export class App {
  readonly health = new Health();
  readonly notifier: Notifier;
  db!: Db;
  device!: DeviceState;
  http!: HttpServer;
  jobs!: Jobs;
  social!: Social;
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
    this.health.set('mqtt', { status: 'off', detail: config.mqttUrl ? undefined : 'not configured' });

    await this.startHttp(() => this.startSocial());
    this.startJobs();
    this.social.scheduleJobs(this.jobs);
    this.startWatchdog();

    await this.notifier.ready(this.statusLine());
    log.info('ready', { url: this.httpUrl, ms: Date.now() - startedAt, version: VERSION });
  }

  private async startDatabase(): Promise<void> {
    const log = this.log.child({ component: 'store' });
    const filename = join(this.config.dataDir, 'nestbox.sqlite3');
    this.db = openDatabase({ filename });
    this.onStop('database', () => this.db.destroy());
    const { applied } = await migrate(this.db);
    if (applied.length) log.info('migrations applied', { migrations: applied });
    this.health.set('database', { status: 'ok' });
  }

  private async startHttp(mountRoutes: () => Promise<void>): Promise<void> {
    const log = this.log.child({ component: 'http' });
    this.http = new HttpServer({ host: this.config.httpHost, port: this.config.httpPort, log });
    this.http.use(healthRouter(this.health, () => this.checkDatabase()).routes());
    await mountRoutes();
    const address = await this.http.start();
    this.onStop('http', () => this.http.stop());
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.httpUrl = `http://${host}:${address.port}`;
    this.health.set('http', { status: 'ok' });
    log.info(`Nestbox is listening on ${this.httpUrl}`, { url: this.httpUrl, base_url: this.config.baseUrl });
  }

  /** The social instance: its routes on the shared server, its counts into DeviceState.instance. */
  private async startSocial(): Promise<void> {
    const log = this.log.child({ component: 'social' });
    this.social = await Social.open({ db: this.db, filename: join(this.config.dataDir, 'nestbox.sqlite3'), config: this.config, log });
    this.onStop('social', () => this.social.close());
    this.social.mount(this.http);
    let timer: NodeJS.Timeout | null = null;
    const refresh = async () => {
      timer = null;
      try {
        this.device.update({ instance: await this.social.counts() });
      } catch (error) {
        log.warn('instance counts failed', { error });
      }
    };
    const schedule = () => { timer ??= setTimeout(refresh, 500); };
    for (const name of ['account.created', 'status.created', 'status.deleted', 'notification.created', 'notifications.removed',
      'follow.created', 'follow.removed', 'follow_request.authorized', 'follow_request.rejected', 'marker.updated'] as const) {
      this.social.events.on(name, schedule);
    }
    this.onStop('social-counts', () => { if (timer) clearTimeout(timer); });
    await refresh();
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

  private startJobs(): void {
    this.jobs = new Jobs(this.log.child({ component: 'jobs' }));
    this.onStop('jobs', () => this.jobs.stop());
    const backupLog = this.log.child({ component: 'backup' });
    this.jobs.add('backup', this.config.backupSchedule, async () => {
      const result = await backupDatabase(this.db, join(this.config.dataDir, 'backups'), this.config.backupKeep);
      backupLog.info('database backed up', { path: result.path, bytes: result.bytes, removed: result.removed.length });
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
