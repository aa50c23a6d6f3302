/** The address a login attempt is counted under: IPv4 as is, IPv6 by /64, loopback not at all. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { throttledAddress } from '../../daemon/social/ratelimit/login-throttle.js';

test('IPv4, also IPv4-mapped IPv6, is counted by the whole address', () => {
  assert.is(throttledAddress('192.0.2.7'), '192.0.2.7');
  assert.is(throttledAddress('::ffff:192.0.2.7'), '192.0.2.7');
  assert.is(throttledAddress('127.0.0.2'), '127.0.0.2');
});

test('IPv6 is counted by its /64, however it is written', () => {
  const net = '2001:db8:1:2::/64';
  for (const address of [
    '2001:db8:1:2::1',
    '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
    '2001:DB8:1:2:0:0:0:9',
    '2001:db8:1:2::5%eth0',
  ]) {
    assert.is(throttledAddress(address), net, address);
  }
  assert.is.not(throttledAddress('2001:db8:1:3::1'), net);
  assert.is(throttledAddress('2001:db8::1'), '2001:db8:0:0::/64');
});

test('loopback and a missing address are not counted by address', () => {
  assert.is(throttledAddress('127.0.0.1'), null);
  assert.is(throttledAddress('::ffff:127.0.0.1'), null);
  assert.is(throttledAddress('::1'), null);
  assert.is(throttledAddress(undefined), null);
});

test.run();
