/**
 * Instructions a process executes in user space while `work` runs (perf stat, from Debian's
 * linux-perf), or null where perf is missing or not allowed, or the machine lends no hardware
 * counter (a virtual machine without a PMU: perf prints `<not supported>`); the benchmarks then
 * print CPU time per request only. Unlike CPU time, the count barely
 * moves when other work shares the machine, so two builds can be compared on a busy one.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const ATTACH_MS = 300;

export async function countInstructions<T>(
  pid: number,
  work: () => Promise<T>,
): Promise<{ result: T; instructions: number | null }> {
  const perf = spawn('perf', ['stat', '-x', ',', '-e', 'instructions:u', '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  perf.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const attached = await attach(perf);
  const result = await work();
  if (!attached) return { result, instructions: null };
  const ended = new Promise((resolve) => perf.on('close', resolve));
  perf.kill('SIGINT');
  await ended;
  const count = /^(\d+),/m.exec(output)?.[1];
  return { result, instructions: count ? Number(count) : null };
}

/** Whether perf is running after the time it takes to attach (false when it could not start or quit). */
function attach(perf: ChildProcess): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ATTACH_MS);
    const fail = () => {
      clearTimeout(timer);
      resolve(false);
    };
    perf.once('error', fail);
    perf.once('exit', fail);
  });
}
