/**
 * Periodic jobs on node-cron: a job never overlaps itself, its errors are logged, and all jobs
 * stop with the daemon.
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

  constructor(private readonly log: Logger) {}

  /** node-cron's own messages (missed runs and the like) go to our JSON log, not to the console. */
  private readonly cronLogger = {
    info: (message: string) => this.log.debug(message),
    warn: (message: string) => this.log.warn(message),
    error: (message: string | Error, error?: Error) => this.log.error(String(message), { error }),
    debug: (message: string | Error) => this.log.debug(String(message)),
  };

  /** Schedules `run`; "off" leaves the job out. */
  add(name: string, schedule: string, run: () => Promise<unknown>): void {
    if (schedule === 'off') return;
    if (this.tasks.has(name)) throw new Error(`job ${name} is already scheduled`);
    const info: JobInfo = { name, schedule, runs: 0, failures: 0, lastRun: null };
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
    return [...this.tasks.values()].map(({ info }) => ({ ...info }));
  }

  async stop(): Promise<void> {
    await Promise.all(
      [...this.tasks.values()].map(async ({ task }) => {
        await task.destroy();
      }),
    );
    this.tasks.clear();
  }
}
