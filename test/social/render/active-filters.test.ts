/** The in-memory cache of each account's active filters: kept, forgotten on change, lapsing at expiry, bounded. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ActiveFiltersCache } from '../../../daemon/social/render/active-filters.js';

function counter(values: string[], until = Infinity) {
  let loads = 0;
  return {
    load: async () => ({ value: values[loads++] ?? 'none', until }),
    get loads() {
      return loads;
    },
  };
}

test('a value is loaded once and then kept', async () => {
  const cache = new ActiveFiltersCache<string>();
  const source = counter(['first', 'second']);
  assert.is(await cache.get('a', 0, source.load), 'first');
  assert.is(await cache.get('a', 1, source.load), 'first');
  assert.is(source.loads, 1);
});

test('forgetting an account loads its value again; other accounts stay', async () => {
  const cache = new ActiveFiltersCache<string>();
  const a = counter(['a1', 'a2']);
  const b = counter(['b1', 'b2']);
  await cache.get('a', 0, a.load);
  await cache.get('b', 0, b.load);
  cache.forget('a');
  assert.is(await cache.get('a', 0, a.load), 'a2');
  assert.is(await cache.get('b', 0, b.load), 'b1');
});

test('a value lapses at its expiry', async () => {
  const cache = new ActiveFiltersCache<string>();
  const source = counter(['before', 'after'], 1000);
  assert.is(await cache.get('a', 999, source.load), 'before');
  assert.is(await cache.get('a', 999, source.load), 'before');
  assert.is(await cache.get('a', 1000, source.load), 'after');
});

test('a value read while a change happened is answered but not kept', async () => {
  const cache = new ActiveFiltersCache<string>();
  let release!: () => void;
  const slow = new Promise<void>((resolve) => {
    release = resolve;
  });
  const pending = cache.get('a', 0, async () => {
    await slow;
    return { value: 'stale', until: Infinity };
  });
  cache.forget('a');
  release();
  assert.is(await pending, 'stale');
  assert.is(await cache.get('a', 0, async () => ({ value: 'fresh', until: Infinity })), 'fresh');
  assert.is(cache.size, 1);
});

test('at most maxEntries accounts are kept, the oldest going first', async () => {
  const cache = new ActiveFiltersCache<string>(2);
  for (const id of ['a', 'b', 'c']) await cache.get(id, 0, async () => ({ value: id, until: Infinity }));
  assert.is(cache.size, 2);
  let reloaded = false;
  await cache.get('a', 0, async () => {
    reloaded = true;
    return { value: 'a', until: Infinity };
  });
  assert.ok(reloaded, 'the oldest entry was dropped');
});

test.run();
