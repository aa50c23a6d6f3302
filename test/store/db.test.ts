import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase, pragma } from '../../daemon/store/db.js';
import { migrate } from '../../daemon/store/migrate.js';
import { MIGRATIONS, type Migration } from '../../daemon/store/migrations/index.js';
import { withTempDatabase } from '../helpers/temp-database.js';

test('the database runs in WAL mode with foreign keys on and a busy timeout', async () => {
  await withTempDatabase(async (db) => {
    assert.is(await pragma(db, 'journal_mode'), 'wal');
    assert.is(await pragma(db, 'foreign_keys'), 1);
    assert.is(await pragma(db, 'busy_timeout'), 5000);
  });
});

test('migrations run once: a second run applies nothing and keeps the data', async () => {
  await withTempDatabase(async (db) => {
    const first = await migrate(db);
    assert.equal(
      first.applied,
      MIGRATIONS.map((m) => m.name),
    );
    await db('settings').insert({ key: 'k', value: 'v' });
    const second = await migrate(db);
    assert.equal(second.applied, []);
    assert.is((await db('settings').first()).value, 'v');
  });
});

test('a database that applied a migration this build does not list is refused, not taken as migrated', async () => {
  await withTempDatabase(async (db) => {
    const newer: Migration = { name: '29990101_01_test_newer', async up() {} };
    await migrate(db, [...MIGRATIONS, newer]);
    await migrate(db).then(
      () => assert.unreachable('an unknown applied migration must be refused'),
      (error: Error) => assert.match(error.message, /corrupt.*29990101_01_test_newer/s),
    );
  });
});

test('a migration that fails leaves the database as it was', async () => {
  await withTempDatabase(async (db) => {
    await migrate(db);
    const good: Migration = {
      name: '29990101_01_test_good',
      async up(knex) {
        await knex.schema.createTable('gadgets', (t) => {
          t.increments('id');
        });
      },
    };
    const bad: Migration = {
      name: '29990101_02_test_bad',
      async up(knex) {
        await knex('settings').insert({ key: 'half', value: 'done' });
        await knex.raw('this is not sql');
      },
    };
    await migrate(db, [...MIGRATIONS, good, bad]).then(
      () => assert.unreachable('the bad migration must fail'),
      (error: Error) => assert.match(error.message, /syntax error/),
    );
    assert.is(await db.schema.hasTable('gadgets'), false, 'the good migration of the same batch was rolled back');
    assert.is(await db('settings').where({ key: 'half' }).first(), undefined);
    const done = await db('knex_migrations').pluck('name');
    assert.equal(
      done,
      MIGRATIONS.map((m) => m.name),
    );
    // Fixed, the batch then applies.
    const fixed = await migrate(db, [...MIGRATIONS, good]);
    assert.equal(fixed.applied, ['29990101_01_test_good']);
  });
});

test('migrations listed out of name order are refused before anything runs', async () => {
  const db = openDatabase({ filename: ':memory:' });
  try {
    const noop = (name: string): Migration => ({ name, async up() {} });
    await migrate(db, [noop('2'), noop('1')]).then(
      () => assert.unreachable('must refuse'),
      (error: Error) => assert.match(error.message, /name order/),
    );
    assert.is(await db.schema.hasTable('knex_migrations'), false);
  } finally {
    await db.destroy();
  }
});

test.run();
