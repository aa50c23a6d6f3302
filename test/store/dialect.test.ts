/**
 * The dialect (daemon/store/dialect.ts) gives the same answers on both engines: id lists and
 * object entries from one JSON parameter, null-safe equality, greatest(), now as ISO text, and
 * constraint violations told apart by what the engine says, not by the words of its message; the
 * tables' text columns, text one engine cannot store (a NUL on PostgreSQL), and the first row of
 * each key.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Db } from '../../daemon/store/db.js';
import { dialectOf, idList, isUniqueViolation, rawRows } from '../../daemon/store/dialect.js';
import { ENGINES, EngineDatabases } from '../helpers/engines.js';

const databases = new EngineDatabases();
test.after(() => databases.close());

async function refusal(write: Promise<unknown>): Promise<unknown> {
  return write.then(
    () => assert.unreachable('the write must be refused'),
    (error: unknown) => error,
  );
}

/** The first row of a raw query, on either engine. */
async function first(db: Db, sql: string, bindings: unknown[] = []): Promise<Record<string, unknown>> {
  return (await rawRows<Record<string, unknown>>(db, sql, bindings))[0];
}

for (const engine of ENGINES) {
  test(`unique and foreign-key violations are told apart (${engine})`, async () => {
    const db = await databases.get(engine);
    const dialect = dialectOf(db);
    assert.is(dialect.engine, engine);
    await db('settings').insert({ key: 'dialect-unique', value: '1' });
    const unique = await refusal(db('settings').insert({ key: 'dialect-unique', value: '2' }));
    assert.ok(dialect.isUniqueViolation(unique));
    assert.ok(isUniqueViolation(unique), 'also without the database at hand');
    assert.not.ok(dialect.isForeignKeyViolation(unique));
    const orphan = await refusal(
      db('users').insert({
        account_id: '9007199254740993999',
        email: 'x@x.test',
        password_hash: 'x',
        created_at: 'now',
      }),
    );
    assert.ok(dialect.isForeignKeyViolation(orphan));
    assert.not.ok(dialect.isUniqueViolation(orphan));
    assert.not.ok(isUniqueViolation(new Error('UNIQUE constraint failed? no: a message of our own')));
  });

  test(`id lists and object entries from one JSON parameter, exact past 2^53 (${engine})`, async () => {
    const db = await databases.get(engine);
    const dialect = dialectOf(db);
    const ids = ['9007199254740993001', '9007199254740993002', '9007199254740993003'];
    for (const id of ids)
      await db('accounts').insert({
        id,
        username: `u${id.slice(-1)}`,
        uri: `u:${id}`,
        created_at: 'now',
        updated_at: 'now',
      });
    const rows = await rawRows<{ id: string }>(
      db,
      `SELECT CAST(a.id AS TEXT) AS id FROM ${dialect.idsTable('ids')} JOIN accounts a ON a.id = CAST(ids.value AS BIGINT) ORDER BY a.id`,
      [idList([ids[2], ids[0], '1'])],
    );
    assert.equal(
      rows.map((row) => row.id),
      [ids[0], ids[2]],
    );
    const entries = await first(
      db,
      `SELECT count(*) AS n, sum(CAST(e.value AS INTEGER)) AS total FROM ${dialect.entriesTable('e')}
        JOIN accounts a ON a.id = CAST(e.key AS BIGINT)`,
      [JSON.stringify({ [ids[0]]: 3, [ids[1]]: 4, '5': 100 })],
    );
    assert.equal({ n: Number(entries.n), total: Number(entries.total) }, { n: 2, total: 7 });
  });

  test(`null-safe equality, greatest(), now as ISO text and the top character (${engine})`, async () => {
    const db = await databases.get(engine);
    const d = dialectOf(db);
    const row = await first(
      db,
      `SELECT CASE WHEN ${d.same('NULL', 'NULL')} THEN 1 ELSE 0 END AS nulls_same,
        CASE WHEN ${d.same("'a'", 'NULL')} THEN 1 ELSE 0 END AS value_null_same,
        CASE WHEN ${d.differs("'a'", 'NULL')} THEN 1 ELSE 0 END AS value_null_differs,
        ${d.greatest('3', '7')} AS larger, ${d.nowIso} AS now,
        CASE WHEN 'zzz' < 'z' || ${d.topCharacter} THEN 1 ELSE 0 END AS below_top`,
    );
    assert.equal(
      { ...row, now: undefined },
      { nulls_same: 1, value_null_same: 0, value_null_differs: 1, larger: 7, now: undefined, below_top: 1 },
    );
    assert.match(String(row.now), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Math.abs(Date.parse(String(row.now)) - Date.now()) < 60_000);
  });

  test(`least(), JSON field, arrays and aggregates, joined text, position, zero padding, numbered id lists (${engine})`, async () => {
    const db = await databases.get(engine);
    const d = dialectOf(db);
    const row = await first(
      db,
      `SELECT ${d.least('3', '7')} AS smaller, ${d.jsonText(`'{"app": "12", "n": 1}'`, 'app')} AS app,
        ${d.jsonText(`'{"n": 1}'`, 'app')} AS missing, ${d.position("'a:b'", "':'")} AS colon,
        ${d.position("'ab'", "':'")} AS no_colon, ${d.zeroPadded('42', 5)} AS padded`,
    );
    assert.equal(row, { smaller: 3, app: '12', missing: null, colon: 2, no_colon: 0, padded: '00042' });
    const values = `(SELECT 2 AS n UNION ALL SELECT 10 UNION ALL SELECT 1) AS v`;
    const aggregates = await first(
      db,
      `SELECT ${d.jsonArrayAgg(d.jsonArray(['v.n', "'x'"]), 'v.n')} AS pairs,
        ${d.joinedText('v.n', "','", 'v.n')} AS joined FROM (SELECT n FROM ${values} ORDER BY n) AS v`,
    );
    assert.equal(JSON.parse(String(aggregates.pairs)), [
      [1, 'x'],
      [2, 'x'],
      [10, 'x'],
    ]);
    assert.is(aggregates.joined, '1,2,10');
    const none = await first(db, `SELECT ${d.jsonArrayAgg('v.n')} AS empty FROM ${values} WHERE v.n > 99`);
    assert.equal(JSON.parse(String(none.empty)), []);
    const ids = await rawRows<{ id: string }>(
      db,
      `SELECT CAST(x.value AS TEXT) AS id FROM ${d.idsTableOf('?', 'x')}
        WHERE CAST(x.value AS BIGINT) IN ${d.idSet()} ORDER BY CAST(x.value AS BIGINT)`,
      [idList(['9007199254740993005', '7']), idList(['7', '9007199254740993005', '8'])],
    );
    assert.equal(
      ids.map((found) => found.id),
      ['7', '9007199254740993005'],
    );
  });

  test(`joined rows keep their query's order, null for no rows (${engine})`, async () => {
    const db = await databases.get(engine);
    const d = dialectOf(db);
    const values = `(SELECT 2 AS n UNION ALL SELECT 10 UNION ALL SELECT 1 UNION ALL SELECT 7) AS v`;
    const rows = (where: string) =>
      d.joinedRows(
        `SELECT CAST(v.n AS TEXT) || ':x' AS item FROM ${values} ${where} ORDER BY v.n DESC LIMIT 3`,
        'item',
        "','",
      );
    const row = await first(db, `SELECT ${rows('')} AS joined, ${rows('WHERE v.n > 99')} AS none`);
    assert.equal(row, { joined: '10:x,7:x,2:x', none: null });
  });

  test(`the first row of each key, in either order (${engine})`, async () => {
    const db = await databases.get(engine);
    const d = dialectOf(db);
    const rows = `SELECT 1 AS id, 'b' AS k UNION ALL SELECT 2, 'a' UNION ALL SELECT 3, 'b' UNION ALL SELECT 4, 'c' UNION ALL SELECT 5, 'a'`;
    const firsts = async (order: string) =>
      (
        await rawRows<{ id: number; k: string }>(
          db,
          `WITH src AS (${rows}) SELECT id, k FROM (${d.firstOfEachKey('src', 'k', order)}) AS f ORDER BY id`,
          [],
        )
      ).map(({ id, k }) => `${k}${Number(id)}`);
    assert.equal(await firsts('id DESC'), ['b3', 'c4', 'a5']);
    assert.equal(await firsts('id ASC'), ['b1', 'a2', 'c4']);
  });

  test(`the tables' text columns, and text with a NUL told apart as unstorable (${engine})`, async () => {
    const db = await databases.get(engine);
    const d = dialectOf(db);
    const columns = await rawRows<{ table_name: string; column_name: string }>(db, d.textColumns);
    const named = new Set(columns.map((column) => `${column.table_name}.${column.column_name}`));
    for (const column of ['accounts.uri', 'accounts.inbox_url', 'statuses.uri', 'settings.value'])
      assert.ok(named.has(column), column);
    assert.not.ok(
      columns.some((column) => column.table_name.startsWith('knex_') || column.table_name.startsWith('sqlite_')),
      'no bookkeeping table',
    );
    const write = db('settings').insert({ key: 'with_nul', value: 'a\u0000b', updated_at: '2026-01-01T00:00:00.000Z' });
    if (engine === 'sqlite') {
      await write;
      assert.is((await first(db, `SELECT value FROM settings WHERE key = 'with_nul'`)).value, 'a\u0000b');
    } else {
      const error = await refusal(write);
      assert.ok(d.isUnstorableText(error), String(error));
      assert.not.ok(d.isServerLost(error));
    }
    assert.not.ok(d.isUnstorableText(new Error('something else')));
  });
}

test.run();
