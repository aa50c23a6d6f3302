/**
 * Runs scrypt on one dedicated worker thread, one password at a time, with a bounded line of
 * waiting jobs: a full line is refused at once (503 with Retry-After) rather than growing, so a
 * flood of logins can neither starve SQLite of libuv's threads nor pile up memory.
 */
import type { Worker } from 'node:worker_threads';
import { busy } from '../../lib/errors.js';
import type { Logger } from '../../log/logger.js';
import type { HashJob, HashResult } from './hash-worker.js';
import { installPath } from '../../install-paths.js';
import { onFirstUse } from '../../lib/on-first-use.js';

/** Worker threads are loaded with the first password to hash, not at every start. */
const loadWorkerThreads = onFirstUse<typeof import('node:worker_threads')>('node:worker_threads');

/** Jobs that may wait behind the running one. */
export const HASH_QUEUE_BOUND = 8;

export interface ScryptParams {
  n: number;
  r: number;
  p: number;
  keyLength: number;
}

export interface HasherStats {
  /** Hashes computed since start. */
  hashed: number;
  /** Jobs waiting or running now. */
  pending: number;
  /** The most jobs ever waiting or running at once. */
  mostPending: number;
  /** Jobs refused because the line was full. */
  refused: number;
}

interface Pending {
  resolve: (key: Buffer) => void;
  reject: (error: Error) => void;
}

export class PasswordHasher {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly counts: HasherStats = { hashed: 0, pending: 0, mostPending: 0, refused: 0 };

  constructor(
    private readonly log: Logger,
    private readonly bound = HASH_QUEUE_BOUND,
  ) {}

  /** The scrypt key of `password`; 503 when `bound` jobs already wait behind the running one. */
  derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
    if (this.pending.size > this.bound) {
      this.counts.refused++;
      return Promise.reject(
        busy('Too many sign-ins are being checked right now; try again in a moment', { 'Retry-After': '1' }),
      );
    }
    const id = this.nextId++;
    const worker = this.started();
    const job: HashJob = { id, password, salt, ...params };
    return new Promise<Buffer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.counts.mostPending = Math.max(this.counts.mostPending, this.pending.size);
      // Referenced only while busy: an idle worker must not keep a tool's process alive.
      worker.ref();
      worker.postMessage(job);
    });
  }

  stats(): HasherStats {
    return { ...this.counts, pending: this.pending.size };
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new (loadWorkerThreads().Worker)(
      installPath('dist', 'daemon', 'social', 'accounts', 'hash-worker.js'),
    );
    worker.on('message', (result: HashResult) => this.finished(worker, result));
    worker.on('error', (error) => this.failed(worker, error));
    worker.on('exit', () => this.failed(worker, new Error('password hashing thread stopped')));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private finished(worker: Worker, result: HashResult): void {
    const job = this.pending.get(result.id);
    if (!job) return;
    this.pending.delete(result.id);
    if (this.pending.size === 0) worker.unref();
    if ('error' in result) return job.reject(new Error(result.error));
    this.counts.hashed++;
    this.log.debug('password hashed', { pending: this.pending.size });
    job.resolve(Buffer.from(result.key.buffer, result.key.byteOffset, result.key.byteLength));
  }

  /** A dead worker fails what it held; the next job starts a new one. */
  private failed(worker: Worker, error: Error): void {
    if (this.worker === worker) this.worker = null;
    for (const job of this.pending.values()) job.reject(error);
    this.pending.clear();
  }
}
