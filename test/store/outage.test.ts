import { test } from 'uvu';
import * as assert from 'uvu/assert';
import knex from 'knex';
import { databaseOutage } from '../../daemon/store/outage.js';

// Neither client connects: the classifier only needs each engine's dialect.
const postgres = knex({ client: 'pg' });
const sqlite = knex({ client: 'sqlite3', useNullAsDefault: true, connection: { filename: ':memory:' } });

const refused = Object.assign(new Error('connect ECONNREFUSED /tmp/x/.s.PGSQL.5432'), {
  code: 'ECONNREFUSED',
  syscall: 'connect',
});
const shuttingDown = Object.assign(new Error('the database system is shutting down'), { code: '57P03' });
const busy = Object.assign(new Error('SQLITE_BUSY: database is locked'), { code: 'SQLITE_BUSY' });
const uniqueViolation = Object.assign(new Error('duplicate key value'), { code: '23505' });

test.after(async () => {
  await Promise.all([postgres.destroy(), sqlite.destroy()]);
});

test('PostgreSQL: a server gone or going is an outage; a refused row is not', () => {
  const outage = databaseOutage(postgres);
  assert.is(outage(refused), 'the database does not answer');
  assert.is(outage(shuttingDown), 'the database does not answer');
  assert.is(outage(uniqueViolation), null);
  assert.is(outage(new TypeError('a bug')), null);
  assert.is(outage(busy), null, 'no busy timeout on PostgreSQL');
});

test('SQLite: another process holding the write lock is an outage; nothing there is a lost server', () => {
  const outage = databaseOutage(sqlite);
  assert.is(outage(busy), 'the database is locked by another process');
  assert.is(outage(refused), null);
  assert.is(outage(new TypeError('a bug')), null);
});

test.run();
