/** Reading peers' Questions and votes defensively, and writing ours as Mastodon does. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asQuestion, parsePoll, parseVote } from '../../../daemon/social/federation/objects/question.js';
import type { PollRow } from '../../../daemon/social/polls/repo.js';

const option = (name: unknown, totalItems: unknown) => ({
  type: 'Note',
  name,
  replies: { type: 'Collection', totalItems },
});

test('a Question: options and counts, single or multiple choice, its end', () => {
  const single = parsePoll({
    type: 'Question',
    oneOf: [option('yes', 3), option('no', 4)],
    endTime: '2026-12-01T10:00:00Z',
    votersCount: 7,
  });
  assert.equal(single, {
    options: ['yes', 'no'],
    tallies: [3, 4],
    multiple: false,
    votesCount: 7,
    votersCount: 7,
    expiresAt: '2026-12-01T10:00:00.000Z',
  });
  const multiple = parsePoll({
    type: 'Question',
    anyOf: [option('a', 1), option('b', 2)],
    closed: '2026-11-01T00:00:00Z',
  });
  assert.is(multiple?.multiple, true);
  assert.is(multiple?.expiresAt, '2026-11-01T00:00:00.000Z', 'closed wins');
  assert.is(multiple?.votersCount, null);
});

test('hostile Questions: odd counts become 0, nameless options drop the poll, options are capped', () => {
  const odd = parsePoll({
    type: 'Question',
    oneOf: [option('a', -1), option('b', 'many'), option('c', 1.5), option('d', 2 ** 60)],
    votersCount: 'lots',
    endTime: 'never',
  });
  assert.equal(odd?.tallies, [0, 0, 0, 0]);
  assert.is(odd?.votersCount, null);
  assert.is(odd?.expiresAt, null);
  assert.is(parsePoll({ type: 'Question', oneOf: [option('a', 1), option({ x: 1 }, 1)] }), null);
  assert.is(parsePoll({ type: 'Question', oneOf: 'yes' }), null);
  assert.is(parsePoll({ type: 'Question' }), null);
  const many = parsePoll({ type: 'Question', oneOf: Array.from({ length: 500 }, (_, i) => option(`o${i}`, i)) });
  assert.is(many?.options.length, 40, 'the viewer-flag bits hold 40 choices');
  assert.is(
    parsePoll({ type: 'Question', oneOf: [option('x'.repeat(10_000), 1), option('b', 0)] })?.options[0]?.length,
    500,
  );
});

test('a vote is a Note with a name answering a Question and no content', () => {
  assert.equal(
    parseVote({ id: 'https://b.test/users/bob#votes/1', type: 'Note', name: 'yes', inReplyTo: 'https://a.test/s/1' }),
    { uri: 'https://b.test/users/bob#votes/1', name: 'yes', questionUri: 'https://a.test/s/1' },
  );
  assert.is(
    parseVote({ id: 'x', type: 'Note', name: 'yes', inReplyTo: 'https://a.test/s/1', content: '<p>hi</p>' }),
    null,
    'a reply with text is a status',
  );
  assert.is(parseVote({ id: 'x', type: 'Note', inReplyTo: 'https://a.test/s/1' }), null);
  assert.is(parseVote('https://b.test/note'), null);
});

test('our Question: hidden totals stay hidden until the end; closed once ended', () => {
  const poll: PollRow = {
    id: '1',
    status_id: '2',
    account_id: '3',
    options: '["red","blue"]',
    tallies: '[2,5]',
    multiple: 1,
    hide_totals: 1,
    votes_count: 7,
    voters_count: 6,
    expires_at: '2026-11-22T12:00:00.000Z',
    ended_notified: 0,
  };
  const open: Record<string, unknown> = {};
  asQuestion(open, poll, Date.parse('2026-11-22T11:00:00Z'));
  assert.is(open.type, 'Question');
  assert.equal(open.anyOf, [option('red', null), option('blue', null)]);
  assert.is(open.endTime, '2026-11-22T12:00:00Z');
  assert.not.ok('closed' in open);
  assert.is(open.votersCount, 6);
  const ended: Record<string, unknown> = {};
  asQuestion(ended, { ...poll, multiple: 0 }, Date.parse('2026-11-22T13:00:00Z'));
  assert.equal(ended.oneOf, [option('red', 2), option('blue', 5)]);
  assert.is(ended.closed, '2026-11-22T12:00:00Z');
});

test.run();
