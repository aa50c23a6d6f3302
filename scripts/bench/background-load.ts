/**
 * `--load N`: N processes that only spin, started beside the daemon for the measured part, so "a
 * loaded machine" is one anybody can make again (N = the cores: every core also runs other work)
 * instead of whatever else the machine happened to be doing.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface BackgroundLoad {
  processes: number;
  stop(): void;
}

/** Reads `--load N` (processes) out of `argv`; null when absent. */
export function takeLoadArg(argv: readonly string[]): number | null {
  const at = argv.findIndex((arg) => arg === '--load' || arg.startsWith('--load='));
  if (at < 0) return null;
  const flag = argv[at];
  const value = flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : argv[at + 1];
  const processes = Number(value);
  if (!Number.isInteger(processes) || processes < 1) throw new Error(`--load: a number of processes, not '${value}'`);
  return processes;
}

/** Starts `processes` spinning shells; `stop` ends them. */
export function startBackgroundLoad(processes: number): BackgroundLoad {
  const children: ChildProcess[] = [];
  for (let i = 0; i < processes; i++) {
    children.push(spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  }
  return {
    processes,
    stop: () => {
      for (const child of children) child.kill('SIGKILL');
    },
  };
}

export function describeLoad(load: BackgroundLoad | null): string {
  return load ? `${load.processes} spinning processes beside the daemon (a loaded machine)` : 'no load added';
}
