/** Rendered accounts are reused only while their row text is unchanged, and stay bounded. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RenderedAccounts } from '../../daemon/social/accounts/rendered.js';
import { renderJson } from '../../daemon/http/json-text.js';

const BASE = 'https://box.example';
const row = (id: string, changes: Record<string, unknown> = {}) => JSON.stringify({
  id, username: `user${id}`, domain: null, display_name: 'Someone', note: '<p>hi</p>', note_source: 'hi', locked: 0, bot: 0,
  discoverable: 1, fields: '[]', avatar: null, avatar_static: null, header: null, header_static: null, uri: `${BASE}/users/user${id}`,
  url: `${BASE}/@user${id}`, silenced_at: null, suspended_at: null, followers_count: 3, following_count: 4, statuses_count: 5,
  last_status_at: '2026-11-20T10:00:00.000Z', created_at: '2026-01-01T12:00:00.000Z', ...changes,
});

test('the same row text gives the same rendered object; a changed row renders anew', () => {
  const rendered = new RenderedAccounts(BASE);
  const first = rendered.of('1', row('1'));
  assert.is(rendered.of('1', row('1')), first);
  assert.is(first.followers_count, 3);
  const followed = rendered.of('1', row('1', { followers_count: 4 }));
  assert.is.not(followed, first);
  assert.is(followed.followers_count, 4);
  assert.is(JSON.parse(renderJson({ account: followed })).account.followers_count, 4);
});

test('a suspended account renders as suspended at once', () => {
  const rendered = new RenderedAccounts(BASE);
  rendered.of('1', row('1'));
  const suspended = rendered.of('1', row('1', { suspended_at: '2026-11-21T00:00:00.000Z' }));
  assert.is(suspended.suspended, true);
  assert.is(suspended.display_name, '');
});

test('beyond its capacity the oldest accounts are dropped and rendered again when asked', () => {
  const rendered = new RenderedAccounts(BASE, 2);
  const one = rendered.of('1', row('1'));
  rendered.of('2', row('2'));
  rendered.of('3', row('3'));
  const again = rendered.of('1', row('1'));
  assert.is.not(again, one);
  assert.equal(again, one);
});

test.run();
