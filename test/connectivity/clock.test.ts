/**
 * The real connectivity clock: Node fires a timer longer than 2^31-1 ms at once, so a wait that long
 * (a chip reset configured never to happen is a wait of Infinity) must not fire early.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { realClock } from '../../daemon/connectivity/clock.js';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a wait of Infinity or of 2^31 ms does not fire; a short one fires; a cleared one does not', async () => {
  const fired: string[] = [];
  const never = realClock.setTimeout(() => fired.push('never'), Infinity);
  const long = realClock.setTimeout(() => fired.push('long'), 2 ** 31);
  realClock.setTimeout(() => fired.push('short'), 5);
  const cleared = realClock.setTimeout(() => fired.push('cleared'), 5);
  realClock.clearTimeout(cleared);
  await settle(60);
  assert.equal(fired, ['short']);
  realClock.clearTimeout(never);
  realClock.clearTimeout(long);
});

test.run();
