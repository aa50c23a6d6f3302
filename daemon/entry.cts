/**
 * The daemon's process entry. CommonJS on purpose: it runs before Node's ESM loader, whose file
 * reads start libuv's thread pool, and the pool's size is fixed when it starts. The pool (SQLite
 * reads, file I/O, password hashing, image processing) gets one thread per core unless
 * UV_THREADPOOL_SIZE says otherwise: Node's default of 4 threads on a 2-core box makes the SQLite
 * reads contend for the cores. On a 4-core Raspberry Pi it is the default anyway. Then the daemon
 * itself (main.js).
 */
import { availableParallelism } from 'node:os';

process.env.UV_THREADPOOL_SIZE ??= String(Math.max(2, availableParallelism()));
void import('./main.js');
