/** Markers, rate limits, error shapes and the instance counts for the device state. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { rawRows } from '../../daemon/store/dialect.js';
import { FAMILIES } from '../../daemon/social/ratelimit/limiter.js';
import { oneWindowFor } from '../helpers/rate-window.js';

let h: SocialHarness;
let kim: TestAccount, lee: TestAccount;

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_LOG_LEVEL: 'debug' });
  kim = await h.account('kim', { owner: true });
  lee = await h.account('lee');
});
test.after(async () => {
  await h?.stop();
});

test('markers: GET answers only the asked, existing timelines; POST creates at version 0 and counts changes', async () => {
  assert.equal((await h.api(kim.token, 'GET', '/api/v1/markers')).body, {});
  const created = await h.api(kim.token, 'POST', '/api/v1/markers', {
    home: { last_read_id: '117000000000000000' },
    notifications: { last_read_id: '5' },
  });
  assert.is(created.status, 200);
  assert.is(created.body.home.last_read_id, '117000000000000000');
  assert.is(created.body.home.version, 0);
  assert.match(created.body.home.updated_at, /Z$/);
  const moved = await h.api(kim.token, 'POST', '/api/v1/markers', { home: { last_read_id: '117000000000000001' } });
  assert.is(moved.body.home.version, 1);
  assert.equal(Object.keys(moved.body), ['home']);
  const same = await h.api(kim.token, 'POST', '/api/v1/markers', { home: { last_read_id: '117000000000000001' } });
  assert.is(same.body.home.version, 1, 'no change, no new version');
  const read = await h.api(kim.token, 'GET', '/api/v1/markers?timeline[]=home&timeline[]=notifications');
  assert.equal(Object.keys(read.body).sort(), ['home', 'notifications']);
  assert.is(read.body.home.last_read_id, '117000000000000001', 'ids above 2^53 survive');
  assert.equal(Object.keys((await h.api(kim.token, 'GET', '/api/v1/markers?timeline[]=home')).body), ['home']);
  const form = await fetch(`${h.url}/api/v1/markers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${kim.token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'notifications[last_read_id]=7',
  });
  assert.is(((await form.json()) as any).notifications.last_read_id, '7');
});

test('markers: a stale version is 409 "Conflict during update, please try again"; a bad id is 422', async () => {
  const stale = await h.api(kim.token, 'POST', '/api/v1/markers', {
    home: { last_read_id: '117000000000000009', version: 0 },
  });
  assert.is(stale.status, 409);
  assert.equal(stale.body, { error: 'Conflict during update, please try again' });
  const fresh = await h.api(kim.token, 'POST', '/api/v1/markers', {
    home: { last_read_id: '117000000000000009', version: 1 },
  });
  assert.is(fresh.body.home.version, 2);
  assert.is((await h.api(kim.token, 'POST', '/api/v1/markers', { home: { last_read_id: 'abc' } })).status, 422);
  assert.is((await h.api(kim.token, 'POST', '/api/v1/markers', { home: 'x' })).status, 400);
});

test('posting is limited to 300 per 3 hours per account: then 429 "Too many requests" with X-RateLimit headers', async () => {
  const window = await oneWindowFor(FAMILIES.statuses.periodMs, 30_000);
  await h.admin.social.ctx
    .db('rate_limits')
    .insert({ account_id: lee.id, family: 'statuses', window_start: window, count: 299 });
  const last = await h.api(lee.token, 'POST', '/api/v1/statuses', { status: 'number 300' });
  assert.is(last.status, 200);
  assert.is(last.headers.get('x-ratelimit-remaining'), '0');
  const refused = await h.api(lee.token, 'POST', '/api/v1/statuses', { status: 'number 301' });
  assert.is(refused.status, 429);
  assert.equal(refused.body, { error: 'Too many requests' });
  assert.is(refused.headers.get('x-ratelimit-limit'), '300');
  assert.is(refused.headers.get('x-ratelimit-remaining'), '0');
  assert.is(
    (await h.api(null, 'GET', `/api/v1/accounts/${lee.id}`)).body.statuses_count,
    1,
    'the refused status is not stored',
  );
  assert.is((await h.api(kim.token, 'POST', '/api/v1/statuses', { status: 'others are not limited' })).status, 200);
});

test('following is limited to 400 per 24 hours per account', async () => {
  const window = await oneWindowFor(FAMILIES.follows.periodMs, 30_000);
  await h.admin.social.ctx
    .db('rate_limits')
    .insert({ account_id: lee.id, family: 'follows', window_start: window, count: 400 });
  const refused = await h.api(lee.token, 'POST', `/api/v1/accounts/${kim.id}/follow`);
  assert.is(refused.status, 429);
  assert.is(refused.headers.get('x-ratelimit-limit'), '400');
  const ok = await h.api(kim.token, 'POST', `/api/v1/accounts/${lee.id}/follow`);
  assert.is(ok.headers.get('x-ratelimit-remaining'), '399');
});

test('reports: the category is stored, deleted statuses stay reportable, and reporting is limited to 400 per 24 hours', async () => {
  const window = await oneWindowFor(FAMILIES.reports.periodMs, 30_000);
  const troll = await h.account('troll');
  const post = await h.api(troll.token, 'POST', '/api/v1/statuses', { status: 'reportable' });
  await h.api(troll.token, 'DELETE', `/api/v1/statuses/${post.body.id}`);
  const res = await h.api(kim.token, 'POST', '/api/v1/reports', {
    account_id: troll.id,
    status_ids: [post.body.id],
    comment: 'spam',
    category: 'spam',
    forward: true,
    forward_to_domains: ['x.example'],
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.category, 'spam');
  assert.equal(res.body.status_ids, [post.body.id]);
  assert.is(res.body.forwarded, false, 'a local target is not forwarded');
  assert.is(res.body.target_account.id, troll.id);
  assert.is(res.headers.get('x-ratelimit-limit'), '400');
  assert.is(
    (await h.api(kim.token, 'POST', '/api/v1/reports', { account_id: lee.id, category: 'gossip' })).status,
    422,
  );
  assert.is(
    (await h.api(kim.token, 'POST', '/api/v1/reports', { account_id: lee.id, status_ids: ['1'] })).status,
    404,
    "only the target's statuses",
  );
  await rawRows<any>(
    h.admin.social.ctx.db,
    'UPDATE rate_limits SET count = 400 WHERE account_id = ? AND family = ? AND window_start = ?',
    [kim.id, 'reports', window],
  );
  assert.is((await h.api(kim.token, 'POST', '/api/v1/reports', { account_id: lee.id })).status, 429);
});

test('errors are {"error": …} with a 4xx status for malformed JSON, wrong types, big bodies and unknown ids', async () => {
  const cases: Array<[string, string, unknown, number]> = [
    ['POST', '/api/v1/statuses', '{not json', 400],
    ['POST', '/api/v1/statuses', { status: ['a'] }, 400],
    ['POST', '/api/v1/statuses', JSON.stringify({ status: 'x'.repeat(1_100_000) }), 413],
    ['GET', '/api/v1/statuses/999999999999999999999999', undefined, 404],
    ['GET', '/api/v1/statuses/-1', undefined, 404],
    ['POST', '/api/v1/accounts/abc/follow', {}, 404],
    ['GET', '/api/v1/notifications/18446744073709551616', undefined, 404],
    ['GET', '/api/v1/notifications?limit=abc&max_id=zzz', undefined, 200],
    ['PATCH', '/api/v1/accounts/update_credentials', '[1,2]', 200],
    ['POST', '/api/v1/markers', { notifications: { last_read_id: 1.5 } }, 422],
  ];
  for (const [method, path, body, status] of cases) {
    const res = await h.api(kim.token, method, path, body);
    assert.is(res.status, status, `${method} ${path}: ${JSON.stringify(res.body).slice(0, 200)}`);
    if (status >= 400) assert.type(res.body.error, 'string', `${method} ${path}`);
  }
  const multipart = new FormData();
  multipart.append('status', 'from a multipart form');
  const res = await fetch(`${h.url}/api/v1/statuses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${kim.token}` },
    body: multipart,
  });
  assert.is(res.status, 200);
  const withFile = new FormData();
  withFile.append('status', 'file');
  withFile.append('file', new Blob([new Uint8Array(10)]), 'x.bin');
  const refused = await fetch(`${h.url}/api/v1/statuses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${kim.token}` },
    body: withFile,
  });
  assert.is(refused.status, 413);
});

test("instance counts for the device state: accounts, statuses, the owner's pending follow requests and unread notifications", async () => {
  await h.api(kim.token, 'PATCH', '/api/v1/accounts/update_credentials', { locked: true });
  const extra = await h.account('mo');
  await h.api(extra.token, 'POST', `/api/v1/accounts/${kim.id}/follow`);
  const counts = await h.admin.social.counts();
  assert.is(counts.accounts, 4);
  assert.is(counts.pending_follow_requests, 1);
  const statuses = await rawRows<any>(
    h.admin.social.ctx.db,
    'SELECT count(*) AS n FROM statuses WHERE deleted_at IS NULL',
  );
  assert.is(counts.statuses, statuses[0].n);
  const unread = (await h.api(kim.token, 'GET', '/api/v1/notifications/unread_count')).body.count;
  assert.is(counts.unread_notifications, unread);
  const newest = (await h.api(kim.token, 'GET', '/api/v1/notifications?limit=1')).body[0].id;
  await h.api(kim.token, 'POST', '/api/v1/markers', { notifications: { last_read_id: newest } });
  assert.is((await h.admin.social.counts()).unread_notifications, 0);
  // The daemon puts them into DeviceState.instance (debounced) as they change.
  const logged = await h.daemon.waitForLog(
    (line) => line.msg === 'instance counts' && line.pending_follow_requests === 1 && line.unread_notifications === 0,
    5000,
  );
  assert.is(logged.accounts, 4);
});

test.run();
