/** Numbered placeholders for knex's raw queries: `?N` as plain `?` with its value repeated in place. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { positional } from '../../daemon/store/numbered.js';

test('each ?N takes its value where it stands; plain ? take the next in order; quoted text is left alone', () => {
  assert.equal(positional('SELECT ?1, ?2, ?1', ['a', 'b']), { sql: 'SELECT ?, ?, ?', bindings: ['a', 'b', 'a'] });
  assert.equal(positional('WHERE x = ? AND y = ?', [1, 2]), { sql: 'WHERE x = ? AND y = ?', bindings: [1, 2] });
  assert.equal(positional(`SELECT '?1', "a?", ?2`, ['a', 'b']), {
    sql: `SELECT '?1', "a?", ?`,
    bindings: ['b'],
  });
});

test('a placeholder without a value is refused, not bound to undefined', () => {
  assert.throws(() => positional('SELECT ?3', ['a']), /no binding for placeholder \?3/);
});

test.run();
