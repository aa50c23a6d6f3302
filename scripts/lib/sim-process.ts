/** The standalone simulator (`scripts/sim.js --pty`) as a child process, for benchmarks. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SIM_SCRIPT = fileURLToPath(new URL('../sim.js', import.meta.url));

export interface SimProcess {
  path: string;
  stop(): Promise<void>;
}

export async function startSimProcess(args: string[]): Promise<SimProcess> {
  const child: ChildProcess = spawn(process.execPath, [SIM_SCRIPT, '--pty', ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the simulator exited (${code}) before printing its PTY`)));
  });
  if (!first.startsWith('PTY ')) throw new Error(`unexpected first line from the simulator: ${first}`);
  return {
    path: first.slice(4),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
