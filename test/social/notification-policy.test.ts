/** Notification filtering: the policy (v2 and v1), filtered notifications, requests accepted and dismissed. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let rita: TestAccount;

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
  rita = await h.account('rita');
});
test.after(async () => {
  await h?.stop();
});

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
