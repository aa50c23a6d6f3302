/**
 * Periodic jobs on croner, in the box's local time: a job never overlaps itself, its errors are
 * logged, and all jobs stop with the daemon. Jobs added before `start()` are scheduled by it, so
 * none runs while the daemon is still starting. A run that fails because of an outage (the database
 * server gone, which /healthz reports) is one warning line, not an error.
 */
import { Cron } from 'croner';
import type { Logger } from '../log/logger.js';
import { CRON_OPTIONS } from './cron-expression.js';

export interface JobInfo {
  name: string;
  schedule: string;
  runs: number;
  failures: number;
  lastRun: string | null;
}

export interface JobsOptions {
  /** Why a failure is an outage rather than a fault of the job (null when it is not one). */
  outage?: (error: unknown) => string | null;
}

export class Jobs {
  private readonly tasks = new Map<string, { task: Cron; info: JobInfo }>();
  private readonly waiting = new Map<string, { info: JobInfo; run: () => Promise<unknown> }>();
  private started = false;

  constructor(
    private readonly log: Logger,
    private readonly options: JobsOptions = {},
  ) {}

  /** Schedules `run` (once started); "off" leaves the job out. */
  add(name: string, schedule: string, run: () => Promise<unknown>): void {
    if (schedule === 'off') return;
    if (this.tasks.has(name) || this.waiting.has(name)) throw new Error(`job ${name} is already scheduled`);
    const info: JobInfo = { name, schedule, runs: 0, failures: 0, lastRun: null };
    if (this.started) this.schedule(info, run);
    else this.waiting.set(name, { info, run });
  }

  /** Schedules the jobs added so far, and from now on each job as it is added. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const { info, run } of this.waiting.values()) this.schedule(info, run);
    this.waiting.clear();
  }

  private schedule(info: JobInfo, run: () => Promise<unknown>): void {
    const { name, schedule } = info;
    let busy = false;
    const task = new Cron(schedule, CRON_OPTIONS, async () => {
      if (busy) return;
      busy = true;
      info.runs += 1;
      info.lastRun = new Date().toISOString();
      try {
        await run();
      } catch (error) {
        info.failures += 1;
        const outage = this.options.outage?.(error) ?? null;
        if (outage) this.log.warn('job did not run', { job: name, reason: outage });
        else this.log.error('job failed', { job: name, error });
      } finally {
        busy = false;
      }
    });
    this.tasks.set(name, { task, info });
  }

  list(): JobInfo[] {
    return [...this.tasks.values(), ...this.waiting.values()].map(({ info }) => ({ ...info }));
  }

  /** Scheduled now (not waiting for `start()`, not stopped). */
  isScheduled(name: string): boolean {
    return this.tasks.get(name)?.task.isRunning() ?? false;
  }

  stop(): Promise<void> {
    this.waiting.clear();
    for (const { task } of this.tasks.values()) task.stop();
    this.tasks.clear();
    return Promise.resolve();
  }
}
