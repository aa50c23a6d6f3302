/**
 * A SQLite transaction refused with SQLITE_BUSY runs again: one that read, then meets another
 * connection's commit before it writes, is refused at once (WAL mode cannot let it write on its old
 * snapshot) and succeeds on its second run. Two connections on one real file.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { openDatabase, type Db } from '../../daemon/store/db.js';
import { retryBusyTransactions } from '../../daemon/store/busy-retry.js';
import { tempDir } from '../helpers/paths.js';

const dir = tempDir();
const filename = join(dir.path, 'busy.sqlite3');
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

/** A transaction that reads, lets the other connection commit on its first run, then writes. */
async function readThenWrite(db: Db): Promise<number> {
  let runs = 0;
  await db.transaction(async (trx) => {
    runs += 1;
    const [row] = await trx('counts').where({ name: 'a' }).select('n');
    if (runs === 1) await other('counts').where({ name: 'b' }).increment('n', 1);
    await trx('counts')
      .where({ name: 'a' })
      .update({ n: (row as { n: number }).n + 1 });
  });
  return runs;
}

test('without the retry, SQLite refuses the write at once with SQLITE_BUSY', async () => {
  const started = Date.now();
  const error = await readThenWrite(first).then(
    () => null,
    (caught: unknown) => caught as { code?: string },
  );
  assert.is(error?.code, 'SQLITE_BUSY');
  assert.ok(Date.now() - started < 4000, 'refused without waiting out the busy timeout');
});

test('with the retry, the transaction runs again and commits', async () => {
  const before = await first<{ n: number }>('counts').orderBy('name').select('n');
  const runs = await readThenWrite(retryBusyTransactions(first));
  assert.is(runs, 2);
  const after = await first<{ n: number }>('counts').orderBy('name').select('n');
  assert.equal(
    after.map((row) => row.n),
    [before[0].n + 1, before[1].n + 1],
  );
});

test.run();
