import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lazy, onFirstUse, PartNotLoaded } from '../../daemon/lib/on-first-use.js';

test('lazy loads once, on the first call, and every caller shares the result', async () => {
  let loads = 0;
  const part = lazy('a part', async () => ({ n: ++loads }));
  assert.is(loads, 0, 'nothing is loaded before the first call');
  const [a, b] = await Promise.all([part(), part()]);
  assert.is(a, b);
  assert.is(await part(), a);
  assert.is(loads, 1);
});

// A variable, so the compiler does not try to resolve the name.
const MISSING_PACKAGE: string = 'nestbox-no-such-package';

test('a part that cannot be loaded fails with an error naming it, and the next call tries again', async () => {
  let attempts = 0;
  const part = lazy('the missing library (nope)', async () => {
    attempts += 1;
    if (attempts === 1) return import(MISSING_PACKAGE);
    return 'loaded';
  });
  const error = await part().then(
    () => null,
    (caught: unknown) => caught,
  );
  assert.instance(error, PartNotLoaded);
  assert.match(
    (error as Error).message,
    /^the missing library \(nope\) could not be loaded: Cannot find package 'nestbox-no-such-package'/,
  );
  assert.is(await part(), 'loaded');
  assert.is(attempts, 2);
});

test('onFirstUse requires a package on the first call and names it when it is missing', () => {
  const path = onFirstUse<typeof import('node:path')>('node:path');
  assert.is(path().join('a', 'b'), 'a/b');
  assert.is(path(), path());
  const missing = onFirstUse('nestbox-no-such-package');
  assert.throws(
    () => missing(),
    (error: Error) =>
      error instanceof PartNotLoaded &&
      /^nestbox-no-such-package could not be loaded: Cannot find module/.test(error.message),
  );
});

test.run();
