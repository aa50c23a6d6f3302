/** The pure parts of grouping: group keys, the sticky 12-hour window, type filters. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { groupPrefix, hourBucket, windowBucket } from '../../daemon/social/notifications/grouping.js';
import { selectGroupedTypes, selectTypes, NOTIFICATION_TYPES } from '../../daemon/social/notifications/types.js';

test('favourites and reblogs group per status, follows per recipient, other types never', () => {
  assert.is(groupPrefix('favourite', '113010503322889311'), 'favourite-113010503322889311');
  assert.is(groupPrefix('reblog', '5'), 'reblog-5');
  assert.is(groupPrefix('follow', null), 'follow');
  assert.is(groupPrefix('mention', '5'), null);
  assert.is(groupPrefix('follow_request', null), null);
});

test('a group window starts at the hour of its first notification and spans 12 hour buckets, sticky across hours', () => {
  const tenFiftyNine = Date.UTC(2026, 0, 1, 10, 59);
  const elevenOhOne = Date.UTC(2026, 0, 1, 11, 1);
  const opened = windowBucket(hourBucket(tenFiftyNine), null);
  assert.is(opened, hourBucket(tenFiftyNine));
  assert.is(windowBucket(hourBucket(elevenOhOne), opened), opened, '10:59 and 11:01 share a group');
  assert.is(windowBucket(opened + 11, opened), opened, 'the 12th bucket is still in the window');
  assert.is(windowBucket(opened + 12, opened), opened + 12, 'the 13th starts a new window');
  assert.is(hourBucket(1_723_400_000_000), 478722);
});

test('types[] keeps known types only; exclude_types[] removes; unknown grouped types group nothing', () => {
  assert.is(selectTypes(undefined, undefined), null);
  assert.equal(selectTypes(['mention', 'bogus'], undefined), ['mention']);
  assert.equal(selectTypes(['bogus'], undefined), []);
  assert.is(selectTypes(undefined, ['follow_request'])!.length, NOTIFICATION_TYPES.length - 1);
  assert.equal(selectGroupedTypes(undefined), ['favourite', 'reblog', 'follow', 'admin.sign_up']);
  assert.equal(selectGroupedTypes(['reblog', 'mention']), ['reblog']);
  assert.equal(selectGroupedTypes(['mention']), []);
});

test.run();
