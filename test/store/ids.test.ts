import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../../daemon/store/db.js';
import { SnowflakeGenerator, idText, isValidId, snowflakeAt, snowflakeTime } from '../../daemon/store/ids.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

test("ids follow Mastodon's layout: milliseconds shifted left 16 bits plus a sequence", () => {
  const at = Date.UTC(2026, 10, 21, 12, 0, 0);
  const ids = new SnowflakeGenerator(() => at);
  const first = BigInt(ids.next());
  assert.is(first >> 16n, BigInt(at));
  assert.is(first & 0xffffn, 0n);
  assert.is(snowflakeTime(first.toString()).getTime(), at);
  assert.is(snowflakeAt(at), first.toString());
  assert.ok(first > MAX_SAFE, 'present-day ids exceed 2^53');
});

test('ids stay strictly increasing under a burst, across a full sequence and a clock going back', () => {
  let now = 1_800_000_000_000;
  const ids = new SnowflakeGenerator(() => now);
  let previous = 0n;
  for (let i = 0; i < 200_000; i += 1) {
    if (i === 150_000) now -= 5_000; // the clock is set back
    const id = BigInt(ids.next());
    assert.ok(id > previous, `id ${i} must grow`);
    previous = id;
  }
});

test('observe() keeps new ids above one already stored', () => {
  const ids = new SnowflakeGenerator(() => 1_000);
  const stored = snowflakeAt(5_000);
  ids.observe(stored);
  assert.ok(BigInt(ids.next()) > BigInt(stored));
});

test('ids above 2^53 survive a round trip through SQLite and JSON exactly', async () => {
  const db = openDatabase({ filename: ':memory:' });
  try {
    await db.schema.createTable('things', (t) => {
      t.bigInteger('id').primary();
      t.string('name');
    });
    const ids = new SnowflakeGenerator();
    const big = [ids.next(), ids.next(), '9223372036854775807', (MAX_SAFE + 2n).toString()];
    await db('things').insert(big.map((id, i) => ({ id, name: `t${i}` })));
    // What the driver does when an id passes through a JS number: it is rounded.
    const naive = await db('things').where({ name: 't3' }).first('id');
    assert.is.not(String(naive.id), big[3], 'sqlite3 rounds integers above 2^53 (this is why idText exists)');
    const rows = await db('things')
      .select(db.raw(idText('id')), 'name')
      .orderBy('id');
    const back = JSON.parse(JSON.stringify(rows)) as Array<{ id: string }>;
    assert.equal(back.map((r) => r.id).sort(), [...big].sort());
    const one = await db('things')
      .where({ id: big[1] })
      .first(db.raw(idText('id')));
    assert.is(one.id, big[1], 'a string id binds and matches exactly');
    const newer = await db('things').where('id', '>', big[0]).count({ n: '*' }).first();
    assert.is(Number(newer!.n), 2, 'the newer snowflake and INT64_MAX compare as integers');
  } finally {
    await db.destroy();
  }
});

test('isValidId accepts decimal strings within SQLite INTEGER only', () => {
  assert.ok(isValidId('110123456789012345'));
  assert.ok(isValidId('9223372036854775807'));
  assert.not.ok(isValidId('9223372036854775808'));
  assert.not.ok(isValidId('12a'));
  assert.not.ok(isValidId(''));
  assert.not.ok(isValidId(123));
});

test.run();
