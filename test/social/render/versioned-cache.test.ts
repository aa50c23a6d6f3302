/** Values kept by (id, render version): reused while the version holds, remade when it moves, bounded. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BoundedMap } from '../../../daemon/social/render/bounded-map.js';
import { VersionedCache } from '../../../daemon/social/render/versioned-cache.js';

interface Row {
  name: string;
}
const made: string[] = [];
const cache = () =>
  new VersionedCache<Row, { name: string }>((row) => {
    made.push(row.name);
    return Object.freeze({ name: row.name.toUpperCase() });
  }, 1);

test('a held version is sent; an unchanged row comes back null and the kept value answers', async () => {
  made.length = 0;
  const c = cache();
  const first = await c.load(['a'], async (known) => {
    assert.equal(known, { a: -1 });
    return [{ id: 'a', version: 3, row: { name: 'alice' } }];
  });
  assert.equal(
    first.map((e) => [e.version, e.value.name]),
    [[3, 'ALICE']],
  );
  const again = await c.load(['a'], async (known) => {
    assert.equal(known, { a: 3 });
    return [{ id: 'a', version: 3, row: null }];
  });
  assert.is(again[0].value, first[0].value);
  const moved = await c.load(['a'], async () => [{ id: 'a', version: 4, row: { name: 'alicia' } }]);
  assert.is(moved[0].value.name, 'ALICIA');
  assert.equal(made, ['alice', 'alicia']);
});

test('an entry evicted by a concurrent request while its rows are read still answers', async () => {
  const c = cache();
  const kept = await c.load(['a'], async () => [{ id: 'a', version: 1, row: { name: 'alice' } }]);
  const answer = await c.load(['a'], async () => {
    await c.load(['b'], async () => [{ id: 'b', version: 1, row: { name: 'bob' } }]); // capacity 1: 'a' goes
    return [{ id: 'a', version: 1, row: null }];
  });
  assert.is(answer[0].value, kept[0].value);
  const afterEviction = await c.load(['a'], async (known) => {
    assert.equal(known, { a: -1 }, 'no longer held, so the row is asked for');
    return [{ id: 'a', version: 1, row: { name: 'alice' } }];
  });
  assert.is(afterEviction[0].value.name, 'ALICE');
});

test('ids that no longer exist are left out; no ids, no query', async () => {
  const c = cache();
  assert.equal(await c.load(['gone'], async () => []), []);
  assert.equal(
    await c.load([], async () => {
      throw new Error('queried');
    }),
    [],
  );
});

test('a bounded map drops its oldest entry at capacity, not on overwrite', () => {
  const m = new BoundedMap<string, number>(2);
  m.set('a', 1);
  m.set('b', 2);
  m.set('a', 3);
  assert.is(m.get('a'), 3);
  m.set('c', 4);
  assert.is(m.get('a'), undefined);
  assert.equal([m.get('b'), m.get('c')], [2, 4]);
});

test.run();
