/**
 * Preloaded by scripts/test-suites.mjs beside loud-hooks: when the suite's process exits, writes the
 * CPU seconds (user + system) it used with those of the children it reaped (daemons, browsers,
 * builds) to the file TEST_CPU_FILE names, so that the runner can print each file's CPU. CPU
 * seconds, unlike wall time, barely move when the machine is busy with other work.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const target = process.env.TEST_CPU_FILE;
// Linux reports these times in clock ticks of 1/100 s (USER_HZ).
const TICKS_PER_SECOND = 100;

function cpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name (which may hold spaces): state is the first, utime the 12th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
  return (utime + stime + cutime + cstime) / TICKS_PER_SECOND;
}

if (target)
  process.on('exit', () => {
    try {
      writeFileSync(target, String(cpuSeconds()));
    } catch {
      // No /proc (not Linux): the runner prints no CPU figure.
    }
  });
