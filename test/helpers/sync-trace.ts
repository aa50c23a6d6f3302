/**
 * Records which files a running process fsyncs (strace -f -y on every thread of it), in order:
 * the only way to see from outside that data was forced to the disk before an answer.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './paths.js';
import { requirePackage } from './system-packages.js';

const STRACE = '/usr/bin/strace';

export interface SyncCall {
  call: 'fsync' | 'fdatasync';
  path: string;
}

export interface SyncTrace {
  /** Stops tracing and answers the sync calls seen, in order. */
  stop(): Promise<SyncCall[]>;
}

export async function traceSyncs(pid: number): Promise<SyncTrace> {
  requirePackage(['strace']);
  const dir = tempDir('nestbox-strace-');
  const output = join(dir.path, 'trace');
  const child = spawn(STRACE, ['-f', '-y', '-e', 'trace=fsync,fdatasync', '-o', output, '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  // "Process N attached with T threads" on stderr once strace has attached to every thread.
  const deadline = Date.now() + 10_000;
  while (!/attached/.test(stderr)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`strace did not attach: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    async stop() {
      child.kill('SIGINT');
      await exited;
      const lines = readFileSync(output, 'utf8').split('\n');
      dir.remove();
      return lines.flatMap((line) => {
        const match = /\b(fsync|fdatasync)\(\d+<([^>]*)>\)\s*=\s*0/.exec(line);
        return match ? [{ call: match[1] as SyncCall['call'], path: match[2] }] : [];
      });
    },
  };
}
