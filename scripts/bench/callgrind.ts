/**
 * `--callgrind`: instructions the daemon executes from its start to READY=1, counted by valgrind's
 * callgrind (Debian's valgrind) over all its threads, in user space. A virtual machine lends perf no
 * counter (instructions.ts), but callgrind counts in software: the figure repeats within about
 * 0.1 % however loaded the machine is, so two builds can be compared on a busy one. The daemon runs
 * some fifty times slower under it; its count is dumped (`callgrind_control -d`) when READY=1
 * arrives, and the process is then killed.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../test/helpers/paths.js';

export interface Callgrind {
  /** The command prefix that runs the daemon under callgrind. */
  prefix: string[];
  /** Dumps the counts so far of the process `pid` and returns the instructions executed. */
  dump(pid: number): number;
  close(): void;
}

export function openCallgrind(): Callgrind {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    throw new Error('--callgrind needs valgrind (Debian package valgrind)', { cause: error });
  }
  const out = tempDir('nestbox-callgrind-');
  return {
    prefix: [
      'valgrind',
      '--tool=callgrind',
      '--quiet',
      '--trace-children=yes',
      `--callgrind-out-file=${join(out.path, 'callgrind.%p')}`,
    ],
    dump(pid) {
      execFileSync('callgrind_control', ['--dump=ready', String(pid)], { stdio: 'ignore' });
      // The first dump is written as callgrind.<pid>.1; its totals line counts instructions (Ir).
      const file = readdirSync(out.path).find((name) => name === `callgrind.${pid}.1`);
      const totals = file ? /^(?:totals|summary): (\d+)/m.exec(readFileSync(join(out.path, file), 'utf8')) : null;
      if (!totals) throw new Error('callgrind wrote no count');
      return Number(totals[1]);
    },
    close: () => out.remove(),
  };
}
