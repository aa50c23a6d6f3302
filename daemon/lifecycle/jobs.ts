/**
 * Periodic jobs on node-cron: a job never overlaps itself, its errors are logged, and all jobs
 * stop with the daemon. Jobs added before `start()` are scheduled by it: node-cron's first schedule
 * sets up its time-zone formatting, which the daemon's start-up need not wait for.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../log/logger.js';

export interface JobInfo {
  name: string;
  schedule: string;
  runs: number;
  failures: number;
  lastRun: string | null;
}

export class Jobs {
  private readonly tasks = new Map<string, { task: ScheduledTask; info: JobInfo }>();
  private readonly waiting = new Map<string, { info: JobInfo; run: () => Promise<unknown> }>();
  private started = false;

  constructor(private readonly log: Logger) {}

  /** node-cron's own messages (missed runs and the like) go to our JSON log, not to the console. */
  private readonly cronLogger = {
    info: (message: string) => this.log.debug(message),
    warn: (message: string) => this.log.warn(message),
    error: (message: string | Error, error?: Error) => this.log.error(String(message), { error }),
    debug: (message: string | Error) => this.log.debug(String(message)),
  };

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
    const task = cron.schedule(
      schedule,
      async () => {
        if (busy) return;
        busy = true;
        info.runs += 1;
        info.lastRun = new Date().toISOString();
        try {
          await run();
        } catch (error) {
          info.failures += 1;
          this.log.error('job failed', { job: name, error });
        } finally {
          busy = false;
        }
      },
      { name, noOverlap: true, logger: this.cronLogger },
    );
    this.tasks.set(name, { task, info });
  }

  list(): JobInfo[] {
    return [...this.tasks.values(), ...this.waiting.values()].map(({ info }) => ({ ...info }));
  }

  async stop(): Promise<void> {
    this.waiting.clear();
    await Promise.all(
      [...this.tasks.values()].map(async ({ task }) => {
        await task.destroy();
      }),
    );
    this.tasks.clear();
  }
}
