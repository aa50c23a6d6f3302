/** The drop / filter / accept verdict on a notification, rule by rule (Mastodon's NotifyService conditions). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DEFAULT_POLICY,
  verdict,
  type Policy,
  type SenderFacts,
} from '../../daemon/social/notification-policy/rules.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW - days * 86_400_000).toISOString();
/** A sender the recipient follows, who follows back for a year, old, not limited. */
const friend: SenderFacts = {
  self: false,
  refused: false,
  following: true,
  followerSince: daysAgo(365),
  senderCreatedAt: daysAgo(400),
  senderLimited: false,
  permitted: false,
  senderStaff: false,
  unsolicitedPrivateMention: false,
};
const stranger: SenderFacts = { ...friend, following: false, followerSince: null };
const all = (choice: Policy[keyof Policy]): Policy => ({
  for_not_following: choice,
  for_not_followers: choice,
  for_new_accounts: choice,
  for_private_mentions: choice,
  for_limited_accounts: choice,
});

test("drops: from self (but a poll's end), refused senders, whatever the policy", () => {
  assert.is(verdict('favourite', { ...friend, self: true }, DEFAULT_POLICY, NOW), 'drop');
  assert.is(verdict('poll', { ...friend, self: true }, DEFAULT_POLICY, NOW), 'accept');
  assert.is(verdict('mention', { ...friend, refused: true }, all('accept'), NOW), 'drop');
});

test("the defaults: a stranger's unsolicited private mention and a limited stranger are filtered, the rest accepted", () => {
  assert.is(verdict('mention', { ...stranger, unsolicitedPrivateMention: true }, DEFAULT_POLICY, NOW), 'filter');
  assert.is(
    verdict('mention', { ...friend, unsolicitedPrivateMention: true }, DEFAULT_POLICY, NOW),
    'accept',
    'followed: not a stranger',
  );
  assert.is(verdict('mention', stranger, DEFAULT_POLICY, NOW), 'accept', 'a public mention');
  assert.is(verdict('favourite', { ...stranger, senderLimited: true }, DEFAULT_POLICY, NOW), 'filter');
  assert.is(
    verdict('favourite', { ...friend, senderLimited: true }, DEFAULT_POLICY, NOW),
    'accept',
    'limited but followed',
  );
});

test('thresholds: followers of under 3 days and accounts of under 30 days', () => {
  const strict: Policy = { ...all('accept'), for_not_followers: 'filter', for_new_accounts: 'drop' };
  assert.is(verdict('follow', { ...friend, followerSince: daysAgo(2.9) }, strict, NOW), 'filter');
  assert.is(verdict('follow', { ...friend, followerSince: daysAgo(3.1) }, strict, NOW), 'accept');
  assert.is(
    verdict('follow', { ...stranger, followerSince: daysAgo(10), senderCreatedAt: daysAgo(29) }, strict, NOW),
    'drop',
    'drop wins over filter',
  );
  assert.is(verdict('follow', { ...friend, senderCreatedAt: daysAgo(29) }, strict, NOW), 'accept', 'new but followed');
});

test('never held back: other types, senders accepted before, staff mentions', () => {
  for (const type of ['poll', 'update', 'status', 'admin.sign_up'])
    assert.is(verdict(type, stranger, all('drop'), NOW), 'accept', type);
  assert.is(verdict('mention', { ...stranger, permitted: true }, all('drop'), NOW), 'accept');
  assert.is(verdict('mention', { ...stranger, senderStaff: true }, all('drop'), NOW), 'accept');
  assert.is(
    verdict('favourite', { ...stranger, senderStaff: true }, all('drop'), NOW),
    'drop',
    'staff favourites follow the policy',
  );
});

test.run();
