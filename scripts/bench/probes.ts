/** Probes the benchmarks share: a daemon ready to answer, its memory, calls per second at N clients. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The process's resident memory in MB, from /proc. */
export function rss(pid: number): number {
  const status = readFileSync(join('/proc', String(pid), 'status'), 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

export async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('daemon did not start');
}

/** Calls per second with `clients` loops calling back to back for `seconds`. */
export async function throughput(call: () => Promise<unknown>, clients: number, seconds: number): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < deadline) {
        await call();
        done += 1;
      }
    }),
  );
  return done / seconds;
}
