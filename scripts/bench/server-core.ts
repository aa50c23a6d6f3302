/**
 * `--server-core` (with `--database postgres`, Linux): the PostgreSQL server on the machine's last
 * core and the benchmark, with everything it starts (the daemons, wrk, the floors' server), on the
 * others. That is the layout of a database on a host of its own, which a move to PostgreSQL is
 * for: its reads then run beside the daemon instead of on the daemon's cores. Without the flag the
 * server shares the daemon's cores, as on one box. Both engines' daemons get the same cores either
 * way (SQLite's query threads are the daemon's own), so a ratio stays a fair comparison.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { childrenOf, statFields } from './server-cpu.js';

export interface CoreSplit {
  /** The core the server's processes run on. */
  server: number;
  /** The cores of everything else, as taskset names a list. */
  rest: string;
}

const SERVER_CORE_FLAG = '--server-core';

/** `--server-core` in `args`: this process (all its threads, and so all it starts from now on) moved to the other cores. */
export function serverCoreOf(args: readonly string[]): CoreSplit | null {
  if (!args.includes(SERVER_CORE_FLAG)) return null;
  const cores = availableParallelism();
  if (cores < 2) throw new Error(`${SERVER_CORE_FLAG} needs at least two cores; this machine has ${cores}`);
  const split = { server: cores - 1, rest: cores === 2 ? '0' : `0-${cores - 2}` };
  pin(process.pid, split.rest);
  return split;
}

/** One line for the run's log. */
export function describeSplit(split: CoreSplit | null): string {
  return split
    ? `PostgreSQL's server on core ${split.server}, the benchmark and its daemons on ${split.rest}`
    : "PostgreSQL's server on the daemons' cores";
}

/**
 * The server's main process `postmaster` and its children so far moved to the split's server
 * core; the backends it forks later inherit the main process's cores.
 */
export function pinServer(split: CoreSplit, postmaster: number): void {
  pin(postmaster, String(split.server));
  for (const child of childrenOf(postmaster)) pin(child.pid, String(split.server));
}

function pin(pid: number, cores: string): void {
  try {
    execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cores, String(pid)], { stdio: 'ignore' });
  } catch (error) {
    // A child that ended meanwhile has nothing left to pin.
    if (pid === process.pid || statFields(pid) !== null)
      throw new Error(`${SERVER_CORE_FLAG}: taskset could not move process ${pid}: ${(error as Error).message}`, {
        cause: error,
      });
  }
}
