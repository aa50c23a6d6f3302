/**
 * Mastodon's notifications API, rule by rule, through HTTP against the real
 * daemon (Mastodon 4.5 behaviour where its documentation is silent). Then notification filtering:
 * the policy (v2 and v1), filtered notifications, requests accepted and dismissed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let alice: TestAccount, bob: TestAccount, carol: TestAccount, dave: TestAccount, erin: TestAccount, frank: TestAccount;
let rita: TestAccount;
const others = () => [bob, carol, dave, erin, frank];

const post = async (who: TestAccount, text: string, extra: object = {}) => {
  const res = await h.api(who.token, 'POST', '/api/v1/statuses', { status: text, ...extra });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
};
const fav = (who: TestAccount, id: string) => h.api(who.token, 'POST', `/api/v1/statuses/${id}/favourite`);
const v1 = (query = '', who = alice) => h.api(who.token, 'GET', `/api/v1/notifications${query}`);
const v2 = (query = '', who = alice) => h.api(who.token, 'GET', `/api/v2/notifications${query}`);
const clear = (who = alice) => h.api(who.token, 'POST', '/api/v1/notifications/clear');

async function ok(who: TestAccount, method: string, path: string, body?: unknown) {
  const res = await h.api(who.token, method, path, body);
  assert.is(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
  return res.body;
}

type Notification = { id: string; type: string; filtered?: boolean; account: { id: string }; status?: { id: string } };
const notifications = async (who: TestAccount, query = '') =>
  (await ok(who, 'GET', `/api/v1/notifications${query}`)) as Notification[];
const from = (list: Notification[], sender: TestAccount) => list.filter((n) => n.account.id === sender.id);
const requests = async (who: TestAccount) =>
  (await ok(who, 'GET', '/api/v1/notifications/requests')) as Array<Record<string, any>>;
const dm = async (sender: TestAccount, to: TestAccount, text: string, extra: Record<string, unknown> = {}) =>
  (await ok(sender, 'POST', '/api/v1/statuses', {
    status: `@${to.username} ${text}`,
    visibility: 'direct',
    ...extra,
  })) as { id: string };

/** A fresh recipient per test: policies and requests are per account. */
let n = 0;
const account = (prefix: string) => h.account(`${prefix}${++n}`);

test.before(async () => {
  h = await startSocialDaemon();
  alice = await h.account('alice', { owner: true });
  rita = await h.account('rita');
  [bob, carol, dave, erin, frank] = await Promise.all(
    ['bob', 'carol', 'dave', 'erin', 'frank'].map((name) => h.account(name)),
  );
});
test.after(async () => {
  await h?.stop();
});

test('record ids are strings holding 64-bit integers above 2^53', async () => {
  const id = await post(alice, 'ids');
  assert.type(id, 'string');
  assert.ok(BigInt(id) > 2n ** 53n);
  assert.ok(BigInt(alice.id) > 2n ** 53n);
  const account = await h.api(null, 'GET', `/api/v1/accounts/${alice.id}`);
  assert.is(account.body.id, alice.id);
  const status = await h.api(null, 'GET', `/api/v1/statuses/${id}`);
  assert.is(status.body.id, id);
});

test('a notification is created when another account reblogs, mentions, favourites or follows; v1 lists them all by default', async () => {
  await clear();
  const id = await post(alice, 'notify me');
  await fav(bob, id);
  await h.api(carol.token, 'POST', `/api/v1/statuses/${id}/reblog`);
  await post(dave, 'hi @alice');
  await h.api(erin.token, 'POST', `/api/v1/accounts/${alice.id}/follow`);
  const { status, body } = await v1();
  assert.is(status, 200);
  assert.equal(
    body.map((n: any) => n.type),
    ['follow', 'mention', 'reblog', 'favourite'],
  );
  for (const n of body) {
    assert.type(n.id, 'string');
    assert.type(n.account.id, 'string');
    assert.match(n.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
  assert.is(body[3].account.id, bob.id);
  assert.is(body[3].status.id, id);
  assert.is(body[2].status.id, id, 'a reblog notification carries the original status');
  assert.is(body[0].status, undefined, 'a follow notification has no status');
});

test('follow_request is a notification type of its own (returned by the API by default)', async () => {
  const locked = await h.account('locked1', { locked: true });
  await h.api(bob.token, 'POST', `/api/v1/accounts/${locked.id}/follow`);
  const { body } = await v1('', locked);
  assert.equal(
    body.map((n: any) => n.type),
    ['follow_request'],
  );
  const excluded = await v1('?exclude_types[]=follow_request', locked);
  assert.equal(excluded.body, []);
});

test('no notification from oneself, from a blocked account, a muted one (with notifications) or in a muted conversation', async () => {
  await clear();
  const own = await post(alice, 'self');
  await fav(alice, own);
  assert.equal((await v1()).body, [], 'from self');

  await h.api(alice.token, 'POST', `/api/v1/accounts/${frank.id}/block`);
  await fav(frank, own);
  assert.equal((await v1()).body, [], 'blocked sender');
  await h.api(alice.token, 'POST', `/api/v1/accounts/${frank.id}/unblock`);

  await h.api(alice.token, 'POST', `/api/v1/accounts/${erin.id}/mute`, { notifications: true });
  await fav(erin, own);
  assert.equal((await v1()).body, [], 'muted with notifications');
  await h.api(alice.token, 'POST', `/api/v1/accounts/${erin.id}/mute`, { notifications: false });
  await h.api(erin.token, 'POST', `/api/v1/statuses/${own}/unfavourite`);
  await fav(erin, own);
  assert.is((await v1()).body.length, 1, 'muted without notifications still notifies');
  await h.api(alice.token, 'POST', `/api/v1/accounts/${erin.id}/unmute`);

  await clear();
  const muted = await h.api(alice.token, 'POST', `/api/v1/statuses/${own}/mute`);
  assert.is(muted.status, 200);
  assert.is(muted.body.muted, true);
  await fav(dave, own);
  await post(bob, '@alice in a muted thread', { in_reply_to_id: own });
  assert.equal((await v1()).body, [], 'muted conversation');
  await h.api(alice.token, 'POST', `/api/v1/statuses/${own}/unmute`);
});

test('undoing a favourite, reblog or follow removes its notification', async () => {
  await clear();
  const id = await post(alice, 'undo');
  await fav(bob, id);
  await h.api(carol.token, 'POST', `/api/v1/statuses/${id}/reblog`);
  await h.api(dave.token, 'POST', `/api/v1/accounts/${alice.id}/follow`);
  assert.is((await v1()).body.length, 3);
  await h.api(bob.token, 'POST', `/api/v1/statuses/${id}/unfavourite`);
  await h.api(carol.token, 'POST', `/api/v1/statuses/${id}/unreblog`);
  await h.api(dave.token, 'POST', `/api/v1/accounts/${alice.id}/unfollow`);
  assert.equal((await v1()).body, []);
});

test('notifications from a suspended account are not shown', async () => {
  await clear();
  const gone = await h.account('suspended1');
  const id = await post(alice, 'suspension');
  await fav(gone, id);
  await fav(bob, id);
  const shown = (await v1()).body;
  assert.is(shown.length, 2);
  await h.admin.social.ctx.db.raw('UPDATE accounts SET suspended_at = ? WHERE id = ?', [
    new Date().toISOString(),
    gone.id,
  ]);
  const senders = async () => (await v1()).body.map((n: any) => n.account.id);
  assert.equal(await h.heard(senders, (ids) => ids.length === 1), [bob.id]);
  assert.equal(
    (await v2()).body.notification_groups[0].notifications_count,
    2,
    'group counts are not re-filtered (as in Mastodon)',
  );
  assert.is((await h.api(alice.token, 'GET', `/api/v1/notifications/${shown[1].id}`)).status, 404);
  assert.is((await h.api(alice.token, 'GET', '/api/v1/notifications/unread_count')).body.count, 1);
});

test('v1: account_id keeps the notifications of that account; a malformed or unknown one gives 200 and []', async () => {
  await clear();
  const id = await post(alice, 'by account');
  await fav(bob, id);
  await fav(carol, id);
  const only = await v1(`?account_id=${carol.id}`);
  assert.is(only.status, 200);
  assert.equal(
    only.body.map((n: any) => n.account.id),
    [carol.id],
  );
  for (const bad of ['foo', '12345']) {
    const res = await v1(`?account_id=${bad}`);
    assert.is(res.status, 200);
    assert.equal(res.body, []);
  }
});

test('v1: types[] keeps only the listed types, exclude_types[] removes them', async () => {
  await clear();
  const id = await post(alice, 'types');
  await fav(bob, id);
  await post(carol, '@alice types');
  assert.equal(
    (await v1('?types[]=mention')).body.map((n: any) => n.type),
    ['mention'],
  );
  assert.equal(
    (await v1('?exclude_types[]=mention')).body.map((n: any) => n.type),
    ['favourite'],
  );
  assert.equal(
    (await v1('?types[]=mention&types[]=favourite&exclude_types[]=favourite')).body.map((n: any) => n.type),
    ['mention'],
  );
});

test("v1: show and dismiss are 404 for another account's notification; dismiss and clear delete the caller's", async () => {
  await clear();
  const id = await post(alice, 'mine');
  await fav(bob, id);
  const [notification] = (await v1()).body;
  const shown = await h.api(alice.token, 'GET', `/api/v1/notifications/${notification.id}`);
  assert.is(shown.status, 200);
  assert.is(shown.body.id, notification.id);
  assert.equal((await h.api(bob.token, 'GET', `/api/v1/notifications/${notification.id}`)).body, {
    error: 'Record not found',
  });
  assert.is((await h.api(bob.token, 'GET', `/api/v1/notifications/${notification.id}`)).status, 404);
  assert.is((await h.api(bob.token, 'POST', `/api/v1/notifications/${notification.id}/dismiss`)).status, 404);
  assert.is((await v1()).body.length, 1, 'another account cannot dismiss it');
  const dismissed = await h.api(alice.token, 'POST', `/api/v1/notifications/${notification.id}/dismiss`);
  assert.is(dismissed.status, 200);
  assert.equal((await v1()).body, []);
  assert.is((await h.api(alice.token, 'GET', `/api/v1/notifications/${notification.id}`)).status, 404);

  await fav(carol, id);
  await post(bob, '@carol hello');
  const cleared = await clear();
  assert.is(cleared.status, 200);
  assert.equal((await v1()).body, []);
  assert.is((await v1('', carol)).body.length, 1, 'clear leaves other accounts alone');
});

test('Link header: rel=next with max_id of the oldest, rel=prev with min_id of the newest; none for an empty page', async () => {
  await clear();
  const id = await post(alice, 'links');
  for (const who of [bob, carol, dave]) await fav(who, id);
  const all = (await v1()).body;
  const page = await v1('?limit=2&types[]=favourite');
  assert.is(page.body.length, 2);
  const link = page.headers.get('link')!;
  assert.is(
    link,
    `<${h.url}/api/v1/notifications?limit=2&max_id=${all[1].id}&types%5B%5D=favourite>; rel="next", <${h.url}/api/v1/notifications?limit=2&min_id=${all[0].id}&types%5B%5D=favourite>; rel="prev"`,
  );
  const next = await v1(`?limit=2&max_id=${all[1].id}`);
  assert.equal(
    next.body.map((n: any) => n.id),
    [all[2].id],
  );
  const empty = await v1(`?max_id=${all[2].id}`);
  assert.equal(empty.body, []);
  assert.is(empty.headers.get('link'), null);
});

test('v1: since_id returns the newest above it; min_id returns the oldest above it, newest first', async () => {
  const all = (await v1()).body.map((n: any) => n.id);
  assert.equal(
    (await v1(`?since_id=${all[2]}&limit=1`)).body.map((n: any) => n.id),
    [all[0]],
  );
  assert.equal(
    (await v1(`?min_id=${all[2]}&limit=1`)).body.map((n: any) => n.id),
    [all[1]],
  );
  assert.equal(
    (await v1(`?min_id=${all[2]}`)).body.map((n: any) => n.id),
    [all[0], all[1]],
  );
});

test('limit: default 40 and at most 80 records in v1, groups in v2; limit=0 is an empty page', async () => {
  await clear();
  const seeded = await seedNotifications(alice.id, bob.id, 90);
  assert.is(seeded, 90);
  assert.is((await h.heard(v1, (page) => page.body.length > 0)).body.length, 40);
  assert.is((await v1('?limit=500')).body.length, 80);
  assert.is((await v1('?limit=0')).body.length, 0);
  assert.is((await v2()).body.notification_groups.length, 40);
  assert.is((await v2('?limit=500')).body.notification_groups.length, 80);
});

test('unread_count is capped: 100 by default, a limit lowers it, at most 1000', async () => {
  assert.equal((await h.api(alice.token, 'GET', '/api/v2/notifications/unread_count')).body, { count: 90 });
  await seedNotifications(alice.id, bob.id, 30);
  const unread = () => h.api(alice.token, 'GET', '/api/v2/notifications/unread_count');
  assert.equal((await h.heard(unread, (answer) => answer.body.count !== 90)).body, { count: 100 });
  assert.equal((await h.api(alice.token, 'GET', '/api/v2/notifications/unread_count?limit=7')).body, { count: 7 });
  assert.equal((await h.api(alice.token, 'GET', '/api/v2/notifications/unread_count?limit=5000')).body, { count: 120 });
  assert.equal((await h.api(alice.token, 'GET', '/api/v1/notifications/unread_count?limit=3')).body, { count: 3 });
  await clear();
});

test('v2 grouping: five favourites of one status by five accounts are one group with five sample_account_ids', async () => {
  await clear();
  const id = await post(alice, 'five favourites');
  for (const who of others()) await fav(who, id);
  const { status, body } = await v2();
  assert.is(status, 200);
  assert.is(body.notification_groups.length, 1);
  const [group] = body.notification_groups;
  assert.is(group.type, 'favourite');
  assert.is(group.notifications_count, 5);
  assert.equal(group.sample_account_ids, [frank.id, erin.id, dave.id, carol.id, bob.id]);
  assert.is(group.status_id, id);
  assert.match(group.group_key, new RegExp(`^favourite-${id}-\\d+$`));
  assert.equal(
    body.accounts.map((a: any) => a.id),
    [frank.id, erin.id, dave.id, carol.id, bob.id],
  );
  assert.equal(
    body.statuses.map((s: any) => s.id),
    [id],
  );
  assert.not.ok('partial_accounts' in body, 'partial_accounts only with expand_accounts=partial_avatars');
  const notifications = (await v1()).body.map((n: any) => n.id);
  assert.is(group.page_max_id, notifications[0]);
  assert.is(group.page_min_id, notifications[4]);
  assert.is(
    group.most_recent_notification_id,
    Number(notifications[0]),
    'most_recent_notification_id is a JSON number, as in Mastodon',
  );
  assert.type(group.page_min_id, 'string');
});

test('v2 grouping: a group of ten is counted whole and names its eight newest senders', async () => {
  await clear();
  const id = await post(alice, 'ten favourites');
  // Ten favourites of one status in one window, from ten accounts, stored in order.
  const senders = [...others().map((who) => who.id)];
  for (let i = 0; i < 5; i++) senders.push((await h.account(`tenfold${i}`)).id);
  const now = new Date().toISOString();
  const groupKey = `favourite-${id}-1`;
  await h.admin.social.ctx.db('notifications').insert(
    senders.map((from) => ({
      account_id: alice.id,
      from_account_id: from,
      type: 'favourite',
      status_id: id,
      group_key: groupKey,
      created_at: now,
    })),
  );
  const { body } = await h.heard(v2, (page) => page.body.notification_groups.length > 0);
  assert.is(body.notification_groups.length, 1);
  const [group] = body.notification_groups;
  assert.is(group.group_key, groupKey);
  assert.is(group.notifications_count, 10);
  assert.equal(group.sample_account_ids, senders.slice(2).reverse(), 'the eight newest, newest first');
  const ids = (await v1()).body.map((n: any) => n.id);
  assert.is(ids.length, 10);
  assert.is(group.page_max_id, ids[0]);
  assert.is(group.page_min_id, ids[9]);
  assert.is(group.latest_page_notification_at, now);
  await clear();
});

test('v2 grouping: with grouped_types set to reblog, two favourites of one status are two groups', async () => {
  await clear();
  const id = await post(alice, 'two favourites');
  await fav(bob, id);
  await fav(carol, id);
  const { body } = await v2('?grouped_types[]=reblog');
  assert.is(body.notification_groups.length, 2);
  for (const group of body.notification_groups) {
    assert.match(group.group_key, /^ungrouped-\d+$/);
    assert.is(group.sample_account_ids.length, 1);
    assert.is(group.notifications_count, 1);
    assert.is(group.page_min_id, group.page_max_id);
  }
  assert.is((await v2()).body.notification_groups.length, 1, 'grouped by default');
});

test('v2: page_min_id, page_max_id and the cursors are notification ids, not group keys', async () => {
  const notifications = (await v1()).body.map((n: any) => n.id);
  const [group] = (await v2()).body.notification_groups;
  assert.is(group.page_max_id, notifications[0]);
  assert.is(group.page_min_id, notifications[1]);
  // A full page spans only its representatives (Mastodon's pagination range).
  const page = await v2('?limit=1');
  assert.is(page.body.notification_groups[0].page_min_id, notifications[0]);
  assert.is(
    page.headers.get('link'),
    `<${h.url}/api/v2/notifications?limit=1&max_id=${notifications[0]}>; rel="next", <${h.url}/api/v2/notifications?limit=1&min_id=${notifications[0]}>; rel="prev"`,
  );
});

test('v2 expand_accounts=partial_avatars: the most recent account of each group in full, the others partial with exactly seven keys', async () => {
  await clear();
  const id = await post(alice, 'partial');
  for (const who of [bob, carol, dave]) await fav(who, id);
  const { body } = await v2('?expand_accounts=partial_avatars');
  assert.equal(
    body.accounts.map((a: any) => a.id),
    [dave.id],
  );
  assert.equal(
    body.partial_accounts.map((a: any) => a.id),
    [carol.id, bob.id],
  );
  for (const partial of body.partial_accounts) {
    assert.equal(Object.keys(partial).sort(), ['acct', 'avatar', 'avatar_static', 'bot', 'id', 'locked', 'url']);
  }
  assert.not.ok(body.partial_accounts.some((a: any) => a.id === dave.id));
  const full = await v2('?expand_accounts=full');
  assert.is(full.body.accounts.length, 3);
  assert.not.ok('partial_accounts' in full.body);
});

test('v2: an unknown expand_accounts value is 400, even with no notifications', async () => {
  const res = await v2('?expand_accounts=everything', frank);
  assert.is(res.status, 400);
  assert.equal(res.body, {
    error: "Invalid value for 'expand_accounts': 'everything', allowed values are 'full' and 'partial_avatars'",
  });
});

test('v2: with types set to mention, only mention groups are returned, each with page_min_id', async () => {
  await clear();
  const id = await post(alice, 'mixed');
  await fav(bob, id);
  await post(carol, '@alice one');
  await post(dave, '@alice two');
  const { body } = await v2('?types[]=mention');
  assert.equal(
    body.notification_groups.map((g: any) => g.type),
    ['mention', 'mention'],
  );
  for (const group of body.notification_groups) {
    assert.type(group.page_min_id, 'string');
    assert.is(group.page_min_id, group.page_max_id);
    assert.is(group.notifications_count, 1, 'a mention is a group of its own');
    assert.is(group.group_key, `ungrouped-${group.page_min_id}`);
  }
  assert.equal(
    body.notification_groups.map((g: any) => g.sample_account_ids[0]),
    [dave.id, carol.id],
  );
});

test('v2: with since_id, only groups newer than that id are returned', async () => {
  await clear();
  const a = await post(alice, 'since a');
  const b = await post(alice, 'since b');
  await fav(bob, a);
  const marker = (await v1()).body[0].id;
  await fav(carol, b);
  await fav(dave, a);
  const { body } = await v2(`?since_id=${marker}`);
  assert.equal(
    body.notification_groups.map((g: any) => g.status_id),
    [a, b],
  );
  const [groupA] = body.notification_groups;
  // The worked example of the note: counts and samples span the whole group, the page range does not.
  assert.is(groupA.notifications_count, 2);
  assert.equal(groupA.sample_account_ids, [dave.id, bob.id]);
  assert.is(groupA.page_min_id, groupA.page_max_id);
  assert.ok(BigInt(groupA.page_min_id) > BigInt(marker));
});

test('v2: with min_id, where the newest notifications belong to one group, that group covers them all', async () => {
  await clear();
  const loud = await post(alice, 'newest group');
  await post(bob, '@alice before');
  const before = (await v1()).body[0].id;
  for (const who of [carol, dave, erin, bob]) await fav(who, loud);
  const ids = (await v1('?types[]=favourite')).body.map((n: any) => n.id);
  const { body } = await v2(`?min_id=${before}`);
  assert.is(body.notification_groups.length, 1);
  const [group] = body.notification_groups;
  assert.is(group.status_id, loud);
  assert.is(group.page_min_id, ids[ids.length - 1]);
  assert.is(group.page_max_id, ids[0]);
  assert.is(group.notifications_count, 4);
});

test('v2: a short page with min_id and max_id counts its groups up to max_id, not above', async () => {
  await clear();
  const loud = await post(alice, 'bounded group');
  for (const who of [bob, carol, dave, erin]) await fav(who, loud);
  const ids = (await v1('?types[]=favourite')).body.map((n: any) => n.id).reverse();
  const { body } = await v2(`?min_id=0&max_id=${ids[3]}`);
  assert.is(body.notification_groups.length, 1);
  const [group] = body.notification_groups;
  assert.is(group.notifications_count, 3);
  assert.equal(group.sample_account_ids, [dave.id, carol.id, bob.id]);
  assert.is(group.page_min_id, ids[0]);
  assert.is(group.page_max_id, ids[2]);
  assert.is(group.most_recent_notification_id, Number(ids[2]));
});

test("v2 pagination follows Mastodon's grouped walk (keys g1 g1 - g2 - g1 g2 g1)", async () => {
  // Rebuilt from spec/models/notification_spec.rb with real favourites: n0..n7 oldest first.
  await clear();
  const g1 = await post(alice, 'g1');
  const g2 = await post(alice, 'g2');
  const steps: Array<[TestAccount, string | null]> = [
    [bob, g1],
    [carol, g1],
    [bob, null],
    [bob, g2],
    [carol, null],
    [dave, g1],
    [carol, g2],
    [erin, g1],
  ];
  for (const [who, status] of steps) {
    if (status) await fav(who, status);
    else await post(who, '@alice ungrouped');
  }
  const n = (await v1()).body.map((x: any) => x.id).reverse();
  const reps = async (query: string) =>
    (await v2(query)).body.notification_groups.map((g: any) =>
      g.page_max_id === g.page_min_id && g.notifications_count === 1 ? g.page_max_id : g.page_max_id,
    );
  const maxIds = async (query: string) =>
    (await h.api(alice.token, 'GET', `/api/v2/notifications${query}`)).headers.get('link')!;
  assert.equal(await reps('?limit=4'), [n[7], n[6], n[4], n[2]]);
  assert.match(await maxIds('?limit=4'), `max_id=${n[2]}`);
  assert.equal((await v2(`?limit=4&since_id=${n[4]}`)).body.notification_groups.length, 2);
  const fromMax = (await v2(`?limit=4&max_id=${n[7]}`)).body.notification_groups;
  assert.equal(
    fromMax.map((g: any) => g.page_max_id),
    [n[6], n[5], n[4], n[2]],
  );
  const fromMin = (await v2(`?limit=4&min_id=0`)).body.notification_groups.map((g: any) => g.page_min_id);
  assert.equal(fromMin, [n[4], n[3], n[2], n[0]]);
});

test('v2: a page whose newest rows are one group still finds the older groups beneath it, both ways', async () => {
  // A page is first looked for among 3 rows per group asked for (here 6 rows for limit=2),
  // all of which belong to one group: the page must still reach the mention below them.
  await clear();
  const loud = await post(alice, 'one loud group');
  const mention = await post(bob, '@alice below the group');
  const senders = [rita, bob, carol, dave, erin, frank];
  for (const who of senders) await fav(who, loud);
  const ids = (await v1()).body.map((x: any) => x.id);
  const newestFirst = (await v2('?limit=2')).body.notification_groups;
  assert.equal(
    newestFirst.map((g: any) => [g.type, g.notifications_count]),
    [
      ['favourite', 6],
      ['mention', 1],
    ],
  );
  assert.equal(
    newestFirst[0].sample_account_ids,
    [...senders].reverse().map((a) => a.id),
  );
  assert.is(newestFirst[0].page_max_id, ids[0]);
  assert.is(newestFirst[0].page_min_id, ids[5]);
  assert.is(newestFirst[1].status_id, mention);
  // Oldest first, the page ends at its newest group's first row: the favourite counts that one alone.
  const oldestFirst = (await v2('?limit=2&min_id=0')).body.notification_groups;
  assert.equal(
    oldestFirst.map((g: any) => [g.type, g.page_min_id, g.page_max_id]),
    [
      ['favourite', ids[5], ids[5]],
      ['mention', ids[6], ids[6]],
    ],
  );
  assert.equal((await v2(`?limit=1&max_id=${ids[0]}`)).body.notification_groups[0].notifications_count, 5);
});

test("v2 show: the group (404 for another account's); dismiss: the whole group, 200 and no change for another account's", async () => {
  await clear();
  const id = await post(alice, 'show');
  await fav(bob, id);
  await fav(carol, id);
  const [group] = (await v2()).body.notification_groups;
  const shown = await h.api(alice.token, 'GET', `/api/v2/notifications/${group.group_key}`);
  assert.is(shown.status, 200);
  assert.is(shown.body.notification_groups[0].group_key, group.group_key);
  assert.is(shown.body.notification_groups[0].notifications_count, 2);
  assert.is((await h.api(bob.token, 'GET', `/api/v2/notifications/${group.group_key}`)).status, 404);
  assert.is((await h.api(alice.token, 'GET', '/api/v2/notifications/ungrouped-999999')).status, 404);

  const accounts = await h.api(alice.token, 'GET', `/api/v2/notifications/${group.group_key}/accounts`);
  assert.equal(
    accounts.body.map((a: any) => a.id),
    [carol.id, bob.id],
  );

  const foreign = await h.api(bob.token, 'POST', `/api/v2/notifications/${group.group_key}/dismiss`);
  assert.is(foreign.status, 200);
  assert.is((await v2()).body.notification_groups.length, 1, 'nothing changed');
  const own = await h.api(alice.token, 'POST', `/api/v2/notifications/${group.group_key}/dismiss`);
  assert.is(own.status, 200);
  assert.equal((await v2()).body.notification_groups, []);
  assert.equal((await v2()).body, { accounts: [], statuses: [], notification_groups: [] });
});

test("v2 clear deletes all of the caller's notifications", async () => {
  const id = await post(alice, 'clear v2');
  await fav(bob, id);
  await post(carol, '@alice and @bob');
  assert.is((await h.api(alice.token, 'POST', '/api/v2/notifications/clear')).status, 200);
  assert.equal((await v2()).body.notification_groups, []);
  assert.ok((await v2('', bob)).body.notification_groups.length >= 1);
});

test('unread_count honours the notifications marker; with no marker it counts all groups', async () => {
  const fresh = await h.account('reader');
  const id = await post(fresh, 'read me');
  await fav(bob, id);
  await fav(carol, id);
  await post(dave, '@reader hello');
  const count = async (query = '') =>
    (await h.api(fresh.token, 'GET', `/api/v2/notifications/unread_count${query}`)).body.count;
  assert.is(await count(), 2, 'no marker: all groups (one favourite group, one mention)');
  assert.is(
    (await h.api(fresh.token, 'GET', '/api/v1/notifications/unread_count')).body.count,
    3,
    'v1 counts notifications',
  );
  const newest = (await v1('', fresh)).body[0].id;
  const favIds = (await v1('?types[]=favourite', fresh)).body.map((n: any) => n.id);
  const marked = await h.api(fresh.token, 'POST', '/api/v1/markers', { notifications: { last_read_id: favIds[1] } });
  assert.is(marked.status, 200);
  assert.is(await count(), 2, 'a group with one new member still counts once');
  await h.api(fresh.token, 'POST', '/api/v1/markers', { notifications: { last_read_id: newest } });
  assert.is(await count(), 0);
  await fav(erin, id);
  await h.api(frank.token, 'POST', `/api/v1/accounts/${fresh.id}/follow`);
  assert.is(await count(), 2);
  assert.is(await count('?exclude_types[]=follow'), 1, 'exclude_types applies');
  assert.is(await count('?grouped_types[]=follow'), 2, 'grouped_types applies');
  await h.api(fresh.token, 'POST', '/api/v1/markers', { notifications: { last_read_id: '0' } });
  assert.is(await count('?grouped_types[]=follow'), 5, 'ungrouped favourites count one by one');
  assert.is(await count(), 3);
  // The favourite group's newest row hidden (its sender suspended): the group still counts by its other rows.
  const gone = await account('hidden');
  await fav(gone, id);
  await h.admin.social.ctx.db.raw('UPDATE accounts SET suspended_at = ? WHERE id = ?', [
    new Date().toISOString(),
    gone.id,
  ]);
  assert.is(await count(), 3, 'a group counts by its newest shown row');
  assert.is(await count('?grouped_types[]=follow'), 5);
  assert.is(await count('?types[]=favourite'), 1);
});

test('unread_count below a long run of one group still finds the older groups under a small cap', async () => {
  const crowded = await account('crowded');
  await post(dave, `@${crowded.username} before the crowd`);
  const id = await post(crowded, 'popular');
  for (let i = 0; i < 7; i++) await fav(await account('fan'), id);
  const count = async (query = '') =>
    (await h.api(crowded.token, 'GET', `/api/v2/notifications/unread_count${query}`)).body.count;
  // The 7 newest unread rows are one favourite group; the mention under them is the second group.
  assert.is(await count('?limit=2'), 2);
  assert.is(await count('?limit=1'), 1);
  assert.is(await count(), 2);
  assert.is(await count('?grouped_types[]=follow'), 8, 'favourites ungrouped: one each');
  assert.is(await count('?grouped_types[]=follow&limit=3'), 3);
});

test('scopes: read:notifications for the reads, write:notifications for dismiss and clear; write does not imply read', async () => {
  const writer = await h.token('alice', 'write write:notifications');
  const reader = await h.token('alice', 'read read:notifications');
  const child = await h.token('alice', 'read:notifications');
  const other = await h.token('alice', 'read:statuses');
  const forbidden = { error: 'This action is outside the authorized scopes' };
  for (const path of [
    '/api/v1/notifications',
    '/api/v2/notifications',
    '/api/v2/notifications/unread_count',
    '/api/v1/notifications/1',
    '/api/v2/notifications/ungrouped-1',
  ]) {
    const res = await h.api(writer, 'GET', path);
    assert.is(res.status, 403, path);
    assert.equal(res.body, forbidden);
    assert.is((await h.api(other, 'GET', path)).status, 403, path);
  }
  for (const path of [
    '/api/v1/notifications/clear',
    '/api/v2/notifications/clear',
    '/api/v1/notifications/1/dismiss',
    '/api/v2/notifications/ungrouped-1/dismiss',
  ]) {
    assert.is((await h.api(reader, 'POST', path)).status, 403, path);
  }
  assert.is((await h.api(child, 'GET', '/api/v2/notifications')).status, 200);
  assert.is((await h.api(writer, 'POST', '/api/v2/notifications/clear')).status, 200);
  const none = await h.api(null, 'GET', '/api/v2/notifications');
  assert.is(none.status, 401);
  assert.equal(none.body, { error: 'The access token is invalid' });
  assert.is((await h.api('not-a-token', 'GET', '/api/v1/notifications')).status, 401);
});

/** Bulk rows for the size rules (limits and caps): ungroupable notifications stored straight into the database. */
/**
 * Rows this test process writes reach a daemon on PostgreSQL through its server's announcement,
 * which may arrive a moment after the commit (on SQLite the daemon sees them at once): waits, a few
 * seconds at most, until the answer at `path` is no longer the one from before the write.
 */
async function seedNotifications(recipient: string, from: string, count: number): Promise<number> {
  const db = h.admin.social.ctx.db;
  const now = new Date().toISOString();
  const rows = Array.from({ length: count }, () => ({
    account_id: recipient,
    from_account_id: from,
    type: 'follow_request',
    status_id: null,
    created_at: now,
  }));
  await db.batchInsert('notifications', rows, 100);
  return count;
}

test("the default policy: private mentions and limited accounts filtered, the rest accepted; v1's booleans", async () => {
  const v2 = await ok(rita, 'GET', '/api/v2/notifications/policy');
  assert.equal(v2, {
    for_not_following: 'accept',
    for_not_followers: 'accept',
    for_new_accounts: 'accept',
    for_private_mentions: 'filter',
    for_limited_accounts: 'filter',
    summary: { pending_requests_count: 0, pending_notifications_count: 0 },
  });
  const v1 = await ok(rita, 'GET', '/api/v1/notifications/policy');
  assert.equal(v1, {
    filter_not_following: false,
    filter_not_followers: false,
    filter_new_accounts: false,
    filter_private_mentions: true,
    summary: { pending_requests_count: 0, pending_notifications_count: 0 },
  });
});

test("a stranger's private mention is held back: not listed, not counted, a request with its count and last status", async () => {
  const me = await account('quiet');
  const stranger = await account('stranger');
  const first = await dm(stranger, me, 'hello?');
  const second = await dm(stranger, me, 'hello again');

  assert.equal(from(await notifications(me), stranger), []);
  assert.equal(
    from(
      (await ok(me, 'GET', '/api/v2/notifications')).notification_groups.map((g: any) => ({
        account: { id: g.sample_account_ids[0] },
      })),
      stranger,
    ),
    [],
  );
  assert.is((await ok(me, 'GET', '/api/v1/notifications/unread_count')).count, 0);
  const held = from(await notifications(me, '?include_filtered=true'), stranger);
  assert.equal(
    held.map((x) => [x.type, x.filtered, x.status?.id]),
    [
      ['mention', true, second.id],
      ['mention', true, first.id],
    ],
  );

  const [request] = await requests(me);
  assert.is(request.account.id, stranger.id);
  assert.is(request.notifications_count, '2', 'a string, as Mastodon sends it');
  assert.is(request.last_status.id, second.id);
  assert.equal(await ok(me, 'GET', `/api/v1/notifications/requests/${request.id}`), request);
  assert.equal((await ok(me, 'GET', '/api/v2/notifications/policy')).summary, {
    pending_requests_count: 1,
    pending_notifications_count: 2,
  });

  // The mention goes with its status; the request goes with its last mention.
  await ok(stranger, 'DELETE', `/api/v1/statuses/${second.id}`);
  assert.is((await requests(me))[0].notifications_count, '1');
  await ok(stranger, 'DELETE', `/api/v1/statuses/${first.id}`);
  assert.equal(await requests(me), []);
});

test("not held back: public mentions, mentions from who one follows, answers to one's own private mention", async () => {
  const me = await account('open');
  const friend = await account('friend');
  const other = await account('other');
  await ok(me, 'POST', '/api/v1/statuses', { status: `@${other.username} hi there`, visibility: 'public' });
  await ok(other, 'POST', '/api/v1/statuses', { status: `@${me.username} public hello` });
  await ok(me, 'POST', `/api/v1/accounts/${friend.id}/follow`);
  await dm(friend, me, 'from a friend');
  const mine = await dm(me, other, 'private question');
  await dm(other, me, 'private answer', { in_reply_to_id: mine.id });
  const shown = await notifications(me);
  assert.is(from(shown, other).length, 2, 'the public mention and the answer');
  assert.is(from(shown, friend).length, 1);
  assert.equal(await requests(me), []);
});

test('accepting a request shows what it held and lets the sender through from then on', async () => {
  const me = await account('accepting');
  const stranger = await account('knocking');
  await dm(stranger, me, 'let me in');
  const [request] = await requests(me);
  const conversations = async () =>
    ((await ok(me, 'GET', '/api/v1/conversations')) as Array<{ accounts: Array<{ id: string }> }>).filter((c) =>
      c.accounts.some((a) => a.id === stranger.id),
    );
  assert.equal(await conversations(), [], 'held back: not among the direct messages either');
  assert.equal(await ok(me, 'POST', `/api/v1/notifications/requests/${request.id}/accept`), {});
  assert.is((await conversations()).length, 1, 'accepted: the conversation shows');
  assert.equal(
    from(await notifications(me), stranger).map((x) => x.filtered),
    [undefined],
  );
  assert.equal(await requests(me), []);
  await dm(stranger, me, 'thanks');
  assert.is(from(await notifications(me), stranger).length, 2, 'no longer held back');
  assert.equal(await ok(me, 'GET', '/api/v1/notifications/requests/merged'), { merged: true });
  assert.is((await h.api(me.token, 'POST', `/api/v1/notifications/requests/${request.id}/accept`)).status, 404, 'gone');
});

test('dismissing one request removes what it held; dismissing a list removes only the requests', async () => {
  const me = await account('dismissing');
  const [one, two, three] = await Promise.all([account('spam'), account('spam'), account('spam')]);
  for (const sender of [one, two, three]) await dm(sender, me, 'buy now');
  const byAccount = new Map((await requests(me)).map((r) => [r.account.id, r.id as string]));
  assert.equal(await ok(me, 'POST', `/api/v1/notifications/requests/${byAccount.get(one.id)}/dismiss`), {});
  const held = await notifications(me, '?include_filtered=true');
  assert.equal(from(held, one), []);
  assert.equal(
    await ok(me, 'POST', '/api/v1/notifications/requests/dismiss', {
      id: [byAccount.get(two.id), byAccount.get(three.id), '999999'],
    }),
    {},
  );
  assert.equal(await requests(me), []);
  const still = await notifications(me, '?include_filtered=true');
  assert.is(from(still, two).length + from(still, three).length, 2, 'their notifications stay (filtered)');
  assert.is((await h.api(rita.token, 'GET', `/api/v1/notifications/requests/${byAccount.get(two.id)}`)).status, 404);
});

test('the policy changed: drop and filter by not following, limited accounts, new accounts, not followers', async () => {
  const me = await account('strict');
  const stranger = await account('anyone');
  const changed = await ok(me, 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'drop' });
  assert.is(changed.for_not_following, 'drop');
  const post = await ok(me, 'POST', '/api/v1/statuses', { status: 'a post' });
  await ok(stranger, 'POST', `/api/v1/statuses/${post.id}/favourite`);
  await ok(stranger, 'POST', '/api/v1/statuses', { status: `@${me.username} public` });
  assert.equal(from(await notifications(me, '?include_filtered=true'), stranger), [], 'dropped: not even stored');

  await ok(me, 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'filter' });
  const other = await account('anyone');
  await ok(other, 'POST', `/api/v1/statuses/${post.id}/favourite`);
  assert.equal(from(await notifications(me), other), []);
  assert.equal(
    from(await notifications(me, '?include_filtered=true'), other).map((x) => x.type),
    ['favourite'],
  );
  assert.equal(await requests(me), [], 'only mentions make requests');

  // Followed but limited: still shown (limited counts only when not followed).
  await ok(me, 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'accept' });
  const limited = await account('limited');
  await h.admin.social.ctx.db('accounts').where({ id: limited.id }).update({ silenced_at: new Date().toISOString() });
  await ok(limited, 'POST', '/api/v1/statuses', { status: `@${me.username} from a limited account` });
  assert.is(
    from(await notifications(me, '?include_filtered=true'), limited)[0]?.filtered,
    true,
    'limited: filtered by default',
  );

  await ok(me, 'PATCH', '/api/v2/notifications/policy', { for_new_accounts: 'filter', for_limited_accounts: 'accept' });
  const fresh = await account('fresh');
  await ok(fresh, 'POST', '/api/v1/statuses', { status: `@${me.username} I am new here` });
  assert.is(from(await notifications(me, '?include_filtered=true'), fresh)[0]?.filtered, true);
  await h.admin.social.ctx
    .db('accounts')
    .where({ id: fresh.id })
    .update({ created_at: new Date(Date.now() - 31 * 86_400_000).toISOString() });
  await ok(fresh, 'POST', '/api/v1/statuses', { status: `@${me.username} a month later` });
  assert.is(from(await notifications(me), fresh).length, 1, 'no longer new');

  await ok(me, 'PATCH', '/api/v2/notifications/policy', { for_new_accounts: 'accept', for_not_followers: 'filter' });
  const follower = await account('follower');
  await ok(follower, 'POST', `/api/v1/accounts/${me.id}/follow`);
  await ok(follower, 'POST', '/api/v1/statuses', { status: `@${me.username} following you since today` });
  assert.equal(
    from(await notifications(me), follower).map((x) => x.type),
    [],
    'a follower of less than three days is not one yet',
  );
  await h.admin.social.ctx
    .db('follows')
    .where({ account_id: follower.id, target_account_id: me.id })
    .update({ created_at: new Date(Date.now() - 4 * 86_400_000).toISOString() });
  await ok(follower, 'POST', '/api/v1/statuses', { status: `@${me.username} an old follower now` });
  assert.equal(
    from(await notifications(me), follower).map((x) => x.type),
    ['mention'],
  );
});

test('policy values are checked; v1 booleans set filter or accept', async () => {
  const me = await account('checked');
  const bad = await h.api(me.token, 'PATCH', '/api/v2/notifications/policy', { for_not_following: 'maybe' });
  assert.is(bad.status, 422);
  assert.is(bad.body.error, 'Validation failed: For not following is not included in the list');
  assert.is(
    (await h.api(me.token, 'PATCH', '/api/v2/notifications/policy', { for_new_accounts: ['drop'] })).status,
    400,
  );
  assert.is((await ok(me, 'GET', '/api/v2/notifications/policy')).for_not_following, 'accept', 'nothing changed');
  const v1 = await ok(me, 'PUT', '/api/v1/notifications/policy', {
    filter_not_following: true,
    filter_private_mentions: 'false',
  });
  assert.is(v1.filter_not_following, true);
  assert.is(v1.filter_private_mentions, false);
  const v2 = await ok(me, 'GET', '/api/v2/notifications/policy');
  assert.is(v2.for_not_following, 'filter');
  assert.is(v2.for_private_mentions, 'accept');
  await ok(me, 'PATCH', '/api/v2/notifications/policy', { for_not_followers: 'drop' });
  assert.is(
    (await ok(me, 'GET', '/api/v1/notifications/policy')).filter_not_followers,
    true,
    'drop reads as filtering in v1',
  );
});

test('requests page newest first with Link headers', async () => {
  const me = await account('paged');
  const senders = [];
  for (let i = 0; i < 3; i++) {
    const sender = await account('pager');
    senders.push(sender);
    await dm(sender, me, `knock ${i}`);
  }
  const page = await h.api(me.token, 'GET', '/api/v1/notifications/requests?limit=2');
  assert.equal(
    page.body.map((r: any) => r.account.id),
    [senders[2].id, senders[1].id],
  );
  const next = /<[^>]*max_id=(\d+)[^>]*>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
  assert.ok(next);
  const rest = await ok(me, 'GET', `/api/v1/notifications/requests?limit=2&max_id=${next}`);
  assert.equal(
    rest.map((r: any) => r.account.id),
    [senders[0].id],
  );
});

test.run();
