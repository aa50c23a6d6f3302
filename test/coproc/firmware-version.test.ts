import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareFirmwareVersions } from '../../daemon/coproc/firmware-version.js';

test("the device's FG-a.b.c.d.e and an image's project version place the same release together", () => {
  assert.is(compareFirmwareVersions('1.0.0', 'FG-1.0.0.0.0'), 0);
  assert.is(compareFirmwareVersions('v1.0', 'FG-1.0.0.0.0'), 0);
  assert.is(compareFirmwareVersions('FG-1.0.0.0.0', 'FG-1.0.0.0.0'), 0);
});

test('numbers decide, one by one, not as text', () => {
  assert.is(compareFirmwareVersions('1.10.0', 'FG-1.9.0.0.0'), 1);
  assert.is(compareFirmwareVersions('FG-1.9.0.0.0', '1.10.0'), -1);
  assert.is(compareFirmwareVersions('v0.9.3', 'FG-1.0.0.0.0'), -1);
  assert.is(compareFirmwareVersions('2', '1.99.99'), 1);
  assert.is(compareFirmwareVersions('1.0.0.0.1', '1.0'), 1);
});

test('what cannot be placed says so: no numbers, or the same numbers with a build suffix', () => {
  assert.is(compareFirmwareVersions('custom build', 'FG-1.0.0.0.0'), null);
  assert.is(compareFirmwareVersions('v1.0.0-4-gabc1234', 'FG-1.0.0.0.0'), null);
  assert.is(compareFirmwareVersions('v1.0.0-4-gabc1234', 'v1.0.0-4-gabc1234'), 0);
  // A suffix does not hide a higher number.
  assert.is(compareFirmwareVersions('v1.1.0-dirty', 'FG-1.0.0.0.0'), 1);
});

test.run();
