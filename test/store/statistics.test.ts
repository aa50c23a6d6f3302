import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Db } from '../../daemon/store/db.js';
import { refreshStatistics } from '../../daemon/store/statistics.js';
import { withTempDatabase } from '../helpers/temp-database.js';

async function statRows(db: Db, table: string): Promise<number | null> {
  const rows = await db.raw<Array<{ stat: string }>>(
    `SELECT stat FROM sqlite_stat1 WHERE tbl = ? AND idx IS NOT NULL`,
    [table],
  );
  return rows[0] ? Number(rows[0].stat.split(' ')[0]) : null;
}

async function createTokens(db: Db): Promise<void> {
  await db.raw('CREATE TABLE tokens (id INTEGER PRIMARY KEY, account INTEGER, secret TEXT)');
  await db.raw('CREATE UNIQUE INDEX tokens_secret ON tokens (secret)');
}

async function fill(db: Db, from: number, to: number): Promise<void> {
  await db.raw(
    `WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)
    INSERT INTO tokens (account, secret) SELECT i % 7, hex(randomblob(8)) FROM n`,
    [from, to],
  );
}

async function hasStatTable(db: Db): Promise<boolean> {
  const rows = (await db.raw(`SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat1'`)) as unknown[];
  return rows.length > 0;
}

test('tables never analyzed get statistics', async () => {
  await withTempDatabase(async (db) => {
    await createTokens(db);
    await fill(db, 1, 500);
    assert.is(await hasStatTable(db), false);
    await refreshStatistics(db);
    assert.is(await statRows(db, 'tokens'), 500);
  });
});

test('stale statistics are measured again once the table has grown tenfold', async () => {
  await withTempDatabase(async (db) => {
    await createTokens(db);
    await fill(db, 1, 2);
    await db.raw('ANALYZE');
    assert.is(await statRows(db, 'tokens'), 2);
    await fill(db, 3, 3000);
    await refreshStatistics(db);
    assert.is(await statRows(db, 'tokens'), 3000);
  });
});

test('a run with nothing to measure changes nothing', async () => {
  await withTempDatabase(async (db) => {
    await createTokens(db);
    await fill(db, 1, 300);
    await refreshStatistics(db);
    const before = await db.raw(`SELECT tbl, idx, stat FROM sqlite_stat1 ORDER BY tbl, idx`);
    await refreshStatistics(db);
    await refreshStatistics(db);
    assert.equal(await db.raw(`SELECT tbl, idx, stat FROM sqlite_stat1 ORDER BY tbl, idx`), before);
  });
});

test.run();
