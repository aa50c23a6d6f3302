/**
 * The password hasher: scrypt on its own thread, not on libuv's pool (which SQLite uses), and
 * a bounded line of waiting jobs that refuses the overflow with 503 instead of growing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { randomBytes, scryptSync } from 'node:crypto';
import { closeSync, constants, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { silentLogger } from '../../daemon/log/logger.js';
import { PasswordHasher } from '../../daemon/social/accounts/password-hasher.js';
import { Passwords } from '../../daemon/social/accounts/passwords.js';
import { statusOf } from '../../daemon/http/errors.js';
import { DomainError } from '../../daemon/lib/errors.js';
import { tempDir } from '../helpers/paths.js';

const PARAMS = { n: 16384, r: 8, p: 1, keyLength: 32 };

test("the derived key is scrypt's, and a stored hash verifies only its own password", async () => {
  const hasher = new PasswordHasher(silentLogger);
  try {
    const salt = randomBytes(16);
    const key = await hasher.derive('correct horse', salt, PARAMS);
    assert.ok(key.equals(scryptSync('correct horse', salt, 32, { N: 16384, r: 8, p: 1 })));
    const passwords = new Passwords(hasher);
    const stored = await passwords.hash('correct horse');
    assert.ok(await passwords.verify('correct horse', stored));
    assert.not.ok(await passwords.verify('battery staple', stored));
    assert.is(hasher.stats().hashed, 4);
  } finally {
    await hasher.close();
  }
});

test("a burst beyond the line's bound is refused with 503 and Retry-After; the line never grows past it", async () => {
  const hasher = new PasswordHasher(silentLogger, 2);
  try {
    const salt = randomBytes(16);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => hasher.derive(`pw-${i}`, salt, PARAMS)),
    );
    const done = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    assert.is(done.length, 3, 'the running job and two waiting');
    assert.is(refused.length, 7);
    for (const error of refused) {
      assert.instance(error, DomainError);
      assert.is(statusOf(error), 503);
      assert.is(error.retry?.['Retry-After'], '1');
    }
    const stats = hasher.stats();
    assert.equal(
      { hashed: stats.hashed, pending: stats.pending, mostPending: stats.mostPending, refused: stats.refused },
      { hashed: 3, pending: 0, mostPending: 3, refused: 7 },
    );
  } finally {
    await hasher.close();
  }
});

test("hashing does not wait for libuv's thread pool: it finishes while every pool thread is busy", async () => {
  const hasher = new PasswordHasher(silentLogger);
  const dir = tempDir('nestbox-pool-');
  try {
    await hasher.derive('warm up', randomBytes(16), PARAMS); // the thread is started before the pool is filled
    const poolSize = Number(process.env.UV_THREADPOOL_SIZE) || 4;
    // Every pool thread held in open() of a FIFO that no one writes to: busy, without spending CPU,
    // until released.
    const fifos = Array.from({ length: poolSize }, (_, i) => join(dir.path, `hold-${i}`));
    execFileSync('mkfifo', fifos);
    const order: string[] = [];
    const blockers = fifos.map((fifo) => readFile(fifo).then(() => void order.push('pool')));
    const hashed = hasher.derive('during the burst', randomBytes(16), PARAMS).then(() => void order.push('hash'));
    // A hash that needed the pool would wait for the blockers: the time of many scrypts, then release them.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([hashed, new Promise((resolve) => (timer = setTimeout(resolve, HASH_WAIT_MS)))]);
    clearTimeout(timer);
    await release(fifos);
    await Promise.all([hashed, ...blockers]);
    assert.is(order[0], 'hash', `finished in the order ${order.join(', ')}`);
  } finally {
    await hasher.close();
    dir.remove();
  }
});

const HASH_WAIT_MS = 5_000;

/** Opens each FIFO for writing and closes it: its reader gets end of file. */
async function release(fifos: string[]): Promise<void> {
  for (const fifo of fifos) {
    for (;;) {
      try {
        // Non-blocking: a FIFO whose reader has not reached open() yet refuses (ENXIO) rather than wait.
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  }
}

test.run();
