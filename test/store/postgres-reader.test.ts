/**
 * The social reader on PostgreSQL: SQLite's placeholders in the one SQL text, rows shaped as
 * SQLite's driver shapes them, a data version that any commit moves and a read does not (the
 * response cache's key), and connections (with their plans) kept while idle.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openReader } from '../../daemon/social/store/reader.js';
import { numberedPlaceholders, PostgresReader } from '../../daemon/store/postgres-reader.js';
import { openPostgres } from '../../daemon/store/postgres.js';
import type { Db } from '../../daemon/store/db.js';
import { rawRows } from '../../daemon/store/dialect.js';
import type { Reader } from '../../daemon/social/store/reader.js';
import { EngineDatabases } from '../helpers/engines.js';

const databases = new EngineDatabases();
test.after(() => databases.close());

test('? and ?N become $n, and quoted text keeps its question marks', () => {
  assert.is(numberedPlaceholders('SELECT ? AS a, ? AS b'), 'SELECT $1 AS a, $2 AS b');
  assert.is(
    numberedPlaceholders('WHERE x >= lower(?1) AND x < lower(?1) || y LIMIT ?2'),
    'WHERE x >= lower($1) AND x < lower($1) || y LIMIT $2',
  );
  assert.is(
    numberedPlaceholders(`SELECT '?' AS q, "a?b", ? AS c, 'it''s ?'`),
    `SELECT '?' AS q, "a?b", $1 AS c, 'it''s ?'`,
  );
});

test('rows read on PostgreSQL look as SQLite gives them: 0/1, JSON as text, exact ids as text', async () => {
  const database = await databases.open('postgres');
  const reader = await openReader(database.db, database.location);
  try {
    const row = await reader.get<Record<string, unknown>>(
      `SELECT TRUE AS yes, FALSE AS no, CAST('[1, 2]' AS jsonb) AS list, count(*) AS n,
        CAST(CAST(? AS bigint) AS TEXT) AS id, CAST(? AS bigint) AS big FROM settings`,
      ['9007199254740993001', '9007199254740993001'],
    );
    assert.equal(row, { yes: 1, no: 0, list: '[1, 2]', n: 0, id: '9007199254740993001', big: '9007199254740993001' });
  } finally {
    await reader.close();
  }
});

test('a statement planned per call takes the same placeholders and gives rows of the same shape', async () => {
  const database = await databases.open('postgres');
  const reader = await openReader(database.db, database.location);
  try {
    const sql = `SELECT CAST(?1 AS bigint) + CAST(?2 AS bigint) AS sum, CAST(?1 AS bigint) > 1 AS more, CAST(?3 AS TEXT) AS word`;
    for (const [first, word] of [
      ['1', 'one'],
      ['5', 'five'],
    ]) {
      const expected = [{ sum: Number(first) + 2, more: Number(first) > 1 ? 1 : 0, word }];
      assert.equal(await reader.allPlannedPerCall(sql, [first, '2', word]), expected);
      assert.equal(await reader.all(sql, [first, '2', word]), expected);
    }
  } finally {
    await reader.close();
  }
});

test('at most its bound of texts are prepared on a connection; the others run unnamed, with the same rows', async () => {
  const database = await databases.open('postgres');
  const reader = await PostgresReader.open(database.db, 1, 2);
  try {
    for (let round = 0; round < 3; round++)
      for (const n of [1, 2, 3, 4]) assert.equal(await reader.all(`SELECT ${n} AS n WHERE 1 = ?`, [1]), [{ n }]);
    // One connection (a pool of one): the view lists what its session prepared.
    const prepared = await reader.allPlannedPerCall<{ statement: string }>(
      'SELECT statement FROM pg_prepared_statements ORDER BY statement',
    );
    assert.equal(
      prepared.map((row) => row.statement),
      ['SELECT 1 AS n WHERE 1 = $1', 'SELECT 2 AS n WHERE 1 = $1'],
    );
  } finally {
    await reader.close();
  }
});

test('the data version moves with every commit, of this process or another, and not with a read', async () => {
  const database = await databases.open('postgres');
  const reader = await openReader(database.db, database.location);
  try {
    const first = await reader.dataVersion();
    await reader.all('SELECT count(*) FROM settings');
    assert.is(await reader.dataVersion(), first, 'a read leaves it');
    await database.db('settings').insert({ key: 'cache-test', value: '1' });
    const second = await reader.dataVersion();
    assert.is.not(second, first, 'a commit moves it');
    // A write still open when the version is read: its commit must move the version past that read.
    await database.db.transaction(async (trx) => {
      await trx('settings').where({ key: 'cache-test' }).update({ value: '2' });
      const during = await reader.dataVersion();
      await trx.commit();
      assert.is.not(await reader.dataVersion(), during, 'the commit moves it past what was read during the write');
    });
  } finally {
    await reader.close();
  }
});

/** The server process behind the next query of the writer and of the reader. */
async function backends(db: Db, reader: Reader): Promise<{ writer: number; reader: number }> {
  const writer = await rawRows<{ pid: number }>(db, 'SELECT pg_backend_pid() AS pid');
  const read = await reader.get<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return { writer: writer[0].pid, reader: read!.pid };
}

test('idle connections stay open past the pools’ own idle times, and close after the one set', async () => {
  const database = await databases.open('postgres');
  // Pools of one: every query of a pool runs on its one connection while it stays open.
  const kept = await PostgresReader.open(database.db, 1);
  const short = openPostgres(database.location, { poolSize: 1, idleConnectionMs: 1000 });
  const shortReader = await PostgresReader.open(short, 1);
  try {
    const [keptBefore, shortBefore] = await Promise.all([backends(database.db, kept), backends(short, shortReader)]);
    // node-postgres closes an idle connection after 10 s unless told otherwise.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    const [keptAfter, shortAfter] = await Promise.all([backends(database.db, kept), backends(short, shortReader)]);
    assert.equal(keptAfter, keptBefore, 'the default pools keep their connections');
    assert.is.not(shortAfter.writer, shortBefore.writer, 'the writer closed its idle connection');
    assert.is.not(shortAfter.reader, shortBefore.reader, 'the reader closed its idle connection');
  } finally {
    await kept.close();
    await shortReader.close();
    await short.destroy();
  }
});

test.run();
