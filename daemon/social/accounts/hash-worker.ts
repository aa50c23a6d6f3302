/**
 * The password hashing thread. scrypt here runs synchronously on this thread, not on libuv's
 * pool, which SQLite's queries and the file reads share: a burst of logins waits in its own line.
 */
import { scryptSync } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

export interface HashJob {
  id: number;
  password: string;
  salt: Uint8Array;
  n: number;
  r: number;
  p: number;
  keyLength: number;
}
export type HashResult = { id: number; key: Uint8Array } | { id: number; error: string };

parentPort!.on('message', (job: HashJob) => {
  let result: HashResult;
  try {
    const key = scryptSync(job.password, job.salt, job.keyLength, {
      N: job.n,
      r: job.r,
      p: job.p,
      maxmem: 64 * 1024 * 1024,
    });
    result = { id: job.id, key };
  } catch (error) {
    result = { id: job.id, error: (error as Error).message };
  }
  parentPort!.postMessage(result);
});
