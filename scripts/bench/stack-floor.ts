/**
 * How fast the shared machine is now, against the day the performance floors were taken: the
 * floors' bare koa server measured with the same wrk, seconds before a benchmark's own figures.
 * This machine's speed swings by up to 2x in spells; the reading says how far from the floors'
 * day a run was, not by how much to correct its figures (spells shift within seconds).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/helpers/ports.js';
import { wrkThroughput } from './wrk.js';
import type { Budget } from './budget.js';

/** docs/performance-floors.md: koa + @koa/router, 5 KB JSON, no database, wrk at 16 connections. */
export const FLOORS_KOA_RPS_16 = 25_381;

export interface StackFloor {
  /** Requests per second of the bare server at 16 connections, now. */
  measure(seconds: number): number;
  close(): Promise<void>;
}

/** `budget`: the server runs under the same CPU quota as the daemon. */
export async function startStackFloor(budget: Budget | null = null): Promise<StackFloor> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./stack-floor-server.js', import.meta.url)), String(port)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (budget) budget.add(child.pid!);
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`stack floor server exited (${code})`)));
    child.stdout.once('data', () => resolve());
  });
  child.removeAllListeners('exit');
  return {
    measure: (seconds) =>
      wrkThroughput({ url: `http://127.0.0.1:${port}`, path: '/', token: 'none', vary: 'none', clients: 16, seconds }),
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
