/**
 * The writer's statements on PostgreSQL are prepared once per connection (named), those that are
 * safe to keep prepared: one query or data change with parameters, no `*` column list (a later
 * ALTER would change its shape), not DDL; the rest go unnamed as before.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openPostgres } from '../../daemon/store/postgres.js';
import { WriterStatements } from '../../daemon/store/writer-statements.js';
import { EngineDatabases } from '../helpers/engines.js';

const databases = new EngineDatabases();
test.after(() => databases.close());

test('which texts get a name, and a text keeps its own', () => {
  const statements = new WriterStatements();
  const update = 'UPDATE settings SET value = ? WHERE key = ?';
  const name = statements.nameOf(update, ['a', 'b']);
  assert.ok(name);
  assert.is(statements.nameOf(update, ['c', 'd']), name);
  assert.is.not(statements.nameOf('DELETE FROM settings WHERE key = ?', ['a']), name);
  assert.ok(statements.nameOf('SELECT count(*) AS n FROM settings WHERE key = ?', ['a']));
  assert.ok(statements.nameOf('  with x AS (SELECT 1 AS n) SELECT n FROM x WHERE n = ?', [1]));
  assert.is(statements.nameOf('SELECT *, CAST(id AS TEXT) AS id FROM blocks WHERE id = ?', [1]), undefined);
  assert.is(statements.nameOf('INSERT INTO t (a) VALUES (?) RETURNING *', [1]), undefined);
  assert.is(statements.nameOf('SELECT value FROM settings', []), undefined);
  assert.is(statements.nameOf('select 1; select 2', undefined), undefined);
  assert.is(statements.nameOf('ALTER TABLE settings ADD COLUMN x text DEFAULT ?', ['a']), undefined);
});

test('past its bound, new texts go unnamed and the named ones keep their names', () => {
  const statements = new WriterStatements(2);
  const first = statements.nameOf('DELETE FROM settings WHERE key = ?', ['a']);
  const second = statements.nameOf('DELETE FROM blocks WHERE id = ?', [1]);
  assert.ok(first && second && first !== second);
  assert.is(statements.nameOf('DELETE FROM mutes WHERE id = ?', [1]), undefined);
  assert.is(statements.nameOf('DELETE FROM settings WHERE key = ?', ['b']), first);
  assert.is(statements.nameOf('DELETE FROM mutes WHERE id = ?', [2]), undefined);
});

test('on PostgreSQL the writer prepares a repeated statement once on its connection, and runs it right', async () => {
  const database = await databases.open('postgres');
  const db = openPostgres(database.location, { poolSize: 1 });
  try {
    for (const value of ['one', 'two', 'three'])
      await db.raw(
        `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        ['writer-statements', value],
      );
    const stored = await db.raw(`SELECT value FROM settings WHERE key = ?`, ['writer-statements']);
    assert.equal(stored.rows, [{ value: 'three' }]);
    // One connection (pool of one): the view lists what this session has prepared.
    const prepared = await db.raw(`SELECT statement FROM pg_prepared_statements WHERE statement LIKE ?`, [
      '%INTO settings%',
    ]);
    assert.is(prepared.rows.length, 1, JSON.stringify(prepared.rows));
    // A failed statement leaves the connection usable and its next call prepared as before.
    try {
      await db.raw(`INSERT INTO settings (key, value) VALUES (?, ?)`, ['writer-statements', 'again']);
      assert.unreachable('a duplicate key was accepted');
    } catch (error) {
      assert.match(String((error as Error).message), /duplicate key/);
    }
    await db.raw(`INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, [
      'writer-statements',
      'x',
    ]);
    const after = await db.raw(`SELECT value FROM settings WHERE key = ?`, ['writer-statements']);
    assert.equal(after.rows, [{ value: 'three' }]);
  } finally {
    await db.destroy();
  }
});

test.run();
