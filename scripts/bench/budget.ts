/**
 * `--budget pi`: the daemon runs under a CPU quota, so a benchmark on this machine reads what a
 * Raspberry Pi 4 would. A Pi 4's Cortex-A72 cores run the floors' bare koa server (5 KB JSON, wrk
 * at 16 connections) at about a third of what one core here does, so the quota is a third of one
 * core (33 ms of CPU every 100 ms, all the daemon's threads together); `--budget 0.5` and the like
 * give other shares. The stack floor is measured under the same quota, so each run prints how the
 * bare server fares on the budget next to the daemon's figures.
 *
 * The quota is a cgroup: cgroup v2's cpu.max where the unified hierarchy has the cpu controller,
 * else cgroup v1's cpu.cfs_quota_us (this machine mounts v1's cpu controller at /sys/fs/cgroup/cpu).
 * Making one needs root; without it the benchmark stops with the reason.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A Raspberry Pi 4's speed on this machine, in cores (see above). */
export const PI_CORES = 0.33;
const PERIOD_US = 100_000;

export interface Budget {
  /** The share of one core the daemon may use. */
  cores: number;
  /** A command prefix that moves the process into the cgroup, then runs the rest (`exec "$@"`). */
  prefix: string[];
  /** Moves a running process (and the threads it starts from then on) into the cgroup. */
  add(pid: number): void;
  close(): void;
}

/** Reads `--budget VALUE` ('pi' or a number of cores) out of `argv`; the rest is returned. */
export function takeBudgetArg(argv: readonly string[]): { cores: number | null; rest: string[] } {
  const rest = [...argv];
  const at = rest.findIndex((arg) => arg === '--budget' || arg.startsWith('--budget='));
  if (at < 0) return { cores: null, rest };
  const [flag] = rest.splice(at, 1);
  const value = flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : rest.splice(at, 1)[0];
  const cores = value === 'pi' ? PI_CORES : Number(value);
  if (!Number.isFinite(cores) || cores <= 0) throw new Error(`--budget: 'pi' or a number of cores, not '${value}'`);
  return { cores, rest };
}

export function openBudget(cores: number): Budget {
  const name = `nestbox-bench-${process.pid}-${Math.round(cores * 100)}`;
  const quota = Math.round(cores * PERIOD_US);
  const unified = '/sys/fs/cgroup';
  const v2 = existsSync(join(unified, 'cgroup.controllers'))
    ? readFileSync(join(unified, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')
    : false;
  const dir = v2 ? join(unified, name) : join(unified, 'cpu', name);
  try {
    mkdirSync(dir);
    if (v2) writeFileSync(join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
    else {
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
    }
  } catch (error) {
    throw new Error(
      `--budget needs a cgroup with the cpu controller (${dir}): ${(error as Error).message}; run as root`,
      { cause: error },
    );
  }
  const procs = join(dir, 'cgroup.procs');
  return {
    cores,
    prefix: ['/bin/sh', '-c', `echo $$ > ${procs} && exec "$@"`, 'sh'],
    add: (pid) => writeFileSync(procs, String(pid)),
    close: () => {
      // Emptied when its processes have exited; a cgroup still in use stays for the next run's sweep.
      try {
        rmdirSync(dir);
      } catch {
        /* still busy: left behind, harmless */
      }
    },
  };
}

export function describeBudget(budget: Budget | null): string {
  return budget
    ? `daemon on a CPU budget of ${budget.cores} core (${Math.round(budget.cores * PERIOD_US) / 1000} ms every ${PERIOD_US / 1000} ms)`
    : 'daemon unconstrained';
}
