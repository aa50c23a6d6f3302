/** The boundary of the setup-key lock: nine wrong keys leave the form open, the tenth locks it, a right key included. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../daemon/log/logger.js';
import {
  SETUP_KEY_LIMIT,
  SetupKeyThrottle,
  SetupKeyThrottled,
} from '../../daemon/social/onboarding/setup-key-throttle.js';

test('nine wrong keys leave the form open; the tenth locks it for the period', async () => {
  assert.is(SETUP_KEY_LIMIT.limit, 10);
  const throttle = new SetupKeyThrottle(silentLogger);
  for (let i = 1; i < 10; i += 1) {
    await throttle.check();
    await throttle.wrongKey();
  }
  await throttle.check(); // after nine, a right key still gets through
  const tenth = await throttle.wrongKey().then(
    () => null,
    (error: unknown) => error,
  );
  assert.instance(tenth, SetupKeyThrottled);
  assert.is((tenth as SetupKeyThrottled).retryAfterS, SETUP_KEY_LIMIT.periodS);
  const next = await throttle.check().then(
    () => null,
    (error: unknown) => error,
  );
  assert.instance(next, SetupKeyThrottled);
  assert.ok((next as SetupKeyThrottled).retryAfterS > SETUP_KEY_LIMIT.periodS - 5);
});

test.run();
