/**
 * systemd's watchdog: WATCHDOG=1 every WATCHDOG_USEC/2, and only when the daemon is really
 * healthy (the event loop is not stalled and the database answers), so a hung daemon is restarted.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Logger } from '../log/logger.js';

export interface WatchdogCheck {
  /** Resolves true when the daemon is fit to be kept running. */
  (): Promise<boolean>;
}

export interface WatchdogOptions {
  env: NodeJS.ProcessEnv;
  ping: () => Promise<void>;
  databaseAnswers: () => Promise<boolean>;
  log: Logger;
  /** Event-loop delay above which the daemon counts as stalled. */
  maxLagMs?: number;
}

export function watchdogIntervalMs(env: NodeJS.ProcessEnv): number | null {
  const usec = Number(env.WATCHDOG_USEC);
  if (!Number.isFinite(usec) || usec <= 0) return null;
  const pid = env.WATCHDOG_PID;
  if (pid && Number(pid) !== process.pid) return null;
  return Math.max(50, Math.floor(usec / 2000));
}

export class Watchdog {
  private timer: NodeJS.Timeout | null = null;
  private histogram: IntervalHistogram | null = null;
  private running = false;

  constructor(private readonly options: WatchdogOptions) {}

  start(): boolean {
    const interval = watchdogIntervalMs(this.options.env);
    if (interval === null) return false;
    this.histogram = monitorEventLoopDelay({ resolution: 20 });
    this.histogram.enable();
    this.timer = setInterval(() => void this.tick(), interval);
    this.timer.unref();
    this.options.log.info('watchdog enabled', { interval_ms: interval });
    return true;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.histogram?.disable();
    this.timer = null;
  }

  /** One check; pings only when it passes. Exposed for tests. */
  async tick(): Promise<boolean> {
    if (this.running) return false;
    this.running = true;
    try {
      const lagMs = this.histogram ? this.histogram.max / 1e6 : 0;
      this.histogram?.reset();
      const maxLag = this.options.maxLagMs ?? 5000;
      const healthy = lagMs < maxLag && (await this.options.databaseAnswers());
      if (healthy) await this.options.ping();
      else this.options.log.warn('watchdog check failed; not pinging', { lag_ms: Math.round(lagMs) });
      return healthy;
    } finally {
      this.running = false;
    }
  }
}
