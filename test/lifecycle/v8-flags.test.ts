/**
 * The launcher's V8 flags after READY=1: only those V8 reads while running (the old generation's
 * growth) are given again; the semi-space size, fixed when the heap was made, and Node's own
 * options are left alone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { restoreRunningFlags } from '../../daemon/lifecycle/v8-flags.js';

test("the heap growth is given back, the semi-space size and Node's options are not", () => {
  const given = restoreRunningFlags(['--heap-growing-percent=50', '--max-semi-space-size=8', '--import=./x.js']);
  assert.equal(given, ['--heap-growing-percent=50']);
});

test('a launcher without V8 flags gets none', () => {
  assert.equal(restoreRunningFlags(['--enable-source-maps']), []);
});

test.run();
