/**
 * The daemon's process entry. CommonJS on purpose: it runs before Node's ESM loader, whose file
 * reads start libuv's thread pool, and the pool's size is fixed when it starts. The pool (SQLite
 * reads, file I/O, password hashing, image processing) gets one thread per core unless
 * UV_THREADPOOL_SIZE says otherwise: Node's default of 4 threads on a 2-core box makes the SQLite
 * reads contend for the cores. On a 4-core Raspberry Pi it is the default anyway. Then the daemon
 * itself (main.js).
 *
 * Before any module loads, the launcher's V8 flags go back to V8's defaults, so Node's built-in
 * modules come from their code cache (lifecycle/v8-flags.ts says why, and gives the heap growth
 * back after READY=1).
 */
import { availableParallelism } from 'node:os';

const HELD_BACK = ['--max-semi-space-size', '--heap-growing-percent'];
const given = process.execArgv.filter((arg) => HELD_BACK.some((name) => arg.startsWith(`${name}=`)));
if (given.length) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when the launcher gave a flag
  const { setFlagsFromString } = require('node:v8') as typeof import('node:v8');
  for (const flag of given) setFlagsFromString(`${flag.slice(0, flag.indexOf('='))}=0`);
}

process.env.UV_THREADPOOL_SIZE ??= String(Math.max(2, availableParallelism()));
void import('./main.js');
