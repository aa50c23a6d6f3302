/**
 * SQLite transactions take the write lock when they begin. A transaction that has read, and writes
 * after another connection tried to commit meanwhile (the admin tool beside the daemon), commits at
 * its first run, and the other connection's write waits for it within the busy timeout: neither is
 * refused with SQLITE_BUSY. Two connections on one real file.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../daemon/store/db.js';
import { tempDir } from '../helpers/paths.js';

const dir = tempDir();
const filename = join(dir.path, 'write-lock.sqlite3');
/** A row of the test's table. */
interface Count {
  name: string;
  n: number;
}
let first: Db;
let other: Db;

test.before(async () => {
  first = openDatabase({ filename });
  other = openDatabase({ filename });
  await first.raw('CREATE TABLE counts (name TEXT PRIMARY KEY, n INTEGER NOT NULL)');
  await first.raw(`INSERT INTO counts VALUES ('a', 0), ('b', 0)`);
});

test.after(async () => {
  await first?.destroy();
  await other?.destroy();
  dir.remove();
});

test('a transaction that read writes at its first run; the other connection waits for its commit', async () => {
  const finished: string[] = [];
  let runs = 0;
  let otherWrite: Promise<unknown> = Promise.resolve();
  await first.transaction(async (trx) => {
    runs += 1;
    const [row] = await trx<Count>('counts').where({ name: 'a' }).select('n');
    otherWrite = other('counts')
      .where({ name: 'b' })
      .increment('n', 1)
      .then(() => finished.push('other'));
    // Time for the other connection's commit, had it not had to wait.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await trx('counts')
      .where({ name: 'a' })
      .update({ n: row.n + 1 });
    finished.push('first');
  });
  await otherWrite;
  assert.is(runs, 1);
  assert.equal(finished, ['first', 'other']);
  const counts = await first<Count>('counts').orderBy('name').select('n');
  assert.equal(
    counts.map((row) => row.n),
    [1, 1],
  );
});

test('a transaction that fails still rolls back whole', async () => {
  const read = () => first<Count>('counts').orderBy('name').select('n');
  const before = await read();
  const error = await first
    .transaction(async (trx) => {
      await trx('counts').where({ name: 'a' }).update({ n: 100 });
      await trx.raw('INSERT INTO counts VALUES (?, ?)', ['b', 0]);
    })
    .then(
      () => null,
      (caught: unknown) => caught as { code?: string },
    );
  assert.is(error?.code, 'SQLITE_CONSTRAINT');
  assert.equal(await read(), before);
});

test.run();
