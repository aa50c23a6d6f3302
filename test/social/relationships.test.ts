/**
 * What an account does about another. Relationships: follows and follow requests, blocks, mutes,
 * domain blocks, notes and the paged lists. Reports (POST /api/v1/reports): statuses (soft-deleted
 * ones included), category, rules, forwarding, rate limit headers.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { dialectOf, rawRows } from '../../daemon/store/dialect.js';

let h: SocialHarness;
let ann: TestAccount, ben: TestAccount, cat: TestAccount, dan: TestAccount, eve: TestAccount;
let alice: TestAccount, bob: TestAccount, carol: TestAccount;

const rel = async (who: TestAccount, target: TestAccount) =>
  (await h.api(who.token, 'GET', `/api/v1/accounts/relationships?id[]=${target.id}`)).body[0];

test.before(async () => {
  h = await startSocialDaemon();
  [ann, ben, cat, dan, eve] = await Promise.all(['ann', 'ben', 'cat', 'dan', 'eve'].map((name) => h.account(name)));
  [alice, bob, carol] = [await h.account('alice'), await h.account('bob'), await h.account('carol')];
  await (h.admin as any).db.raw(`INSERT INTO server_rules (text) VALUES ('No spam')`);
});
test.after(async () => {
  await h?.stop();
});

test('follow answers the relationship; following again is no error; unfollow undoes it', async () => {
  const res = await h.api(ann.token, 'POST', `/api/v1/accounts/${ben.id}/follow`);
  assert.is(res.status, 200);
  assert.is(res.body.following, true);
  assert.is(res.body.showing_reblogs, true);
  for (const key of [
    'requested',
    'domain_blocking',
    'note',
    'muting',
    'muting_notifications',
    'followed_by',
    'blocking',
    'blocked_by',
  ])
    assert.ok(key in res.body, key);
  const again = await h.api(ann.token, 'POST', `/api/v1/accounts/${ben.id}/follow`, { reblogs: false });
  assert.is(again.status, 200);
  assert.is(again.body.showing_reblogs, false);
  assert.is((await rel(ben, ann)).followed_by, true);
  const counts = await h.api(null, 'GET', `/api/v1/accounts/${ben.id}`);
  assert.is(counts.body.followers_count, 1);
  const un = await h.api(ann.token, 'POST', `/api/v1/accounts/${ben.id}/unfollow`);
  assert.is(un.body.following, false);
  assert.is((await h.api(null, 'GET', `/api/v1/accounts/${ben.id}`)).body.followers_count, 0);
  assert.is((await h.api(ann.token, 'POST', `/api/v1/accounts/${ann.id}/follow`)).status, 403, 'not oneself');
  assert.is((await h.api(ann.token, 'POST', '/api/v1/accounts/424242/follow')).status, 404);
});

test('POST /api/v1/follows follows by address and answers the account', async () => {
  const res = await h.api(cat.token, 'POST', '/api/v1/follows', { uri: 'dan' });
  assert.is(res.status, 200);
  assert.is(res.body.id, dan.id);
  assert.is((await rel(cat, dan)).following, true);
  assert.is(
    (await h.api(cat.token, 'POST', '/api/v1/follows', { uri: 'dan' })).status,
    200,
    'no error when already following',
  );
});

test('following a locked account makes a follow request; authorize answers the relationship', async () => {
  await h.api(eve.token, 'PATCH', '/api/v1/accounts/update_credentials', { locked: true });
  const res = await h.api(ann.token, 'POST', `/api/v1/accounts/${eve.id}/follow`);
  assert.is(res.body.following, false);
  assert.is(res.body.requested, true);
  const me = await h.api(eve.token, 'GET', '/api/v1/accounts/verify_credentials');
  assert.is(me.body.source.follow_requests_count, 1);
  const list = await h.api(eve.token, 'GET', '/api/v1/follow_requests');
  assert.equal(
    list.body.map((a: any) => a.id),
    [ann.id],
  );
  const authorized = await h.api(eve.token, 'POST', `/api/v1/follow_requests/${ann.id}/authorize`);
  assert.is(authorized.status, 200);
  assert.is(authorized.body.id, ann.id);
  assert.is(authorized.body.followed_by, true);
  assert.is(authorized.body.requested_by, false);
  assert.is((await rel(ann, eve)).following, true);
  assert.is(
    (await h.api(eve.token, 'POST', `/api/v1/follow_requests/${ann.id}/authorize`)).status,
    404,
    'no pending request left',
  );
});

test('reject removes the request', async () => {
  await h.api(ben.token, 'POST', `/api/v1/accounts/${eve.id}/follow`);
  const rejected = await h.api(eve.token, 'POST', `/api/v1/follow_requests/${ben.id}/reject`);
  assert.is(rejected.status, 200);
  assert.is(rejected.body.requested_by, false);
  assert.is((await rel(ben, eve)).requested, false);
  assert.equal(
    (await h.api(eve.token, 'GET', '/api/v1/notifications?types[]=follow_request')).body.filter(
      (n: any) => n.account.id === ben.id,
    ),
    [],
  );
});

test('a target that has muted the requester gets a request, even when unlocked', async () => {
  await h.api(dan.token, 'POST', `/api/v1/accounts/${ben.id}/mute`);
  const res = await h.api(ben.token, 'POST', `/api/v1/accounts/${dan.id}/follow`);
  assert.is(res.body.requested, true);
  assert.is(res.body.following, false);
  await h.api(dan.token, 'POST', `/api/v1/follow_requests/${ben.id}/reject`);
  await h.api(dan.token, 'POST', `/api/v1/accounts/${ben.id}/unmute`);
});

test('unlocking authorizes the pending requests, except from muted requesters', async () => {
  await h.api(ben.token, 'POST', `/api/v1/accounts/${eve.id}/follow`);
  await h.api(cat.token, 'POST', `/api/v1/accounts/${eve.id}/follow`);
  await h.api(eve.token, 'POST', `/api/v1/accounts/${cat.id}/mute`);
  await h.api(eve.token, 'PATCH', '/api/v1/accounts/update_credentials', { locked: false });
  assert.is((await rel(ben, eve)).following, true);
  const muted = await rel(cat, eve);
  assert.is(muted.following, false);
  assert.is(muted.requested, true);
});

test('silenced requesters are not auto-authorized on unlock', async () => {
  const quiet = await h.account('quiet');
  await h.admin.social.ctx.db.raw('UPDATE accounts SET silenced_at = ? WHERE id = ?', [
    new Date().toISOString(),
    quiet.id,
  ]);
  await h.api(dan.token, 'PATCH', '/api/v1/accounts/update_credentials', { locked: true });
  await h.api(quiet.token, 'POST', `/api/v1/accounts/${dan.id}/follow`);
  await h.api(dan.token, 'PATCH', '/api/v1/accounts/update_credentials', { locked: false });
  assert.is((await rel(quiet, dan)).requested, true);
});

test('block removes follows both ways and hides the blocker; unblock', async () => {
  await h.api(ann.token, 'POST', `/api/v1/accounts/${dan.id}/follow`);
  await h.api(dan.token, 'POST', `/api/v1/accounts/${ann.id}/follow`);
  const blocked = await h.api(ann.token, 'POST', `/api/v1/accounts/${dan.id}/block`);
  assert.is(blocked.body.blocking, true);
  assert.is(blocked.body.following, false);
  assert.is(blocked.body.followed_by, false);
  assert.is((await rel(dan, ann)).blocked_by, true);
  assert.is((await h.api(dan.token, 'POST', `/api/v1/accounts/${ann.id}/follow`)).status, 403);
  assert.equal(
    (await h.api(ann.token, 'GET', '/api/v1/blocks')).body.map((a: any) => a.id),
    [dan.id],
  );
  assert.is((await h.api(ann.token, 'POST', `/api/v1/accounts/${dan.id}/unblock`)).body.blocking, false);
});

test('mute with notifications and duration; expired mutes stop at once', async () => {
  const asked = Date.now();
  const muted = await h.api(ann.token, 'POST', `/api/v1/accounts/${cat.id}/mute`, {
    notifications: false,
    duration: 1,
  });
  const answered = Date.now();
  assert.is(muted.body.muting, true);
  assert.is(muted.body.muting_notifications, false);
  const listed = (await h.api(ann.token, 'GET', '/api/v1/mutes')).body;
  assert.equal(
    listed.map((a: any) => a.id),
    [cat.id],
  );
  const ends = Date.parse(listed[0].mute_expires_at);
  // One second after the mute was made (a stored time may drop its milliseconds).
  assert.ok(ends >= asked && ends <= answered + 1000, `a timed mute says when it ends: ${listed[0].mute_expires_at}`);
  assert.ok(
    ends > Date.now() - 500 && ends <= Date.now() + 1500,
    `a timed mute says when it ends: ${listed[0].mute_expires_at}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.is((await rel(ann, cat)).muting, false);
  assert.equal((await h.api(ann.token, 'GET', '/api/v1/mutes')).body, []);
  assert.is(await h.admin.social.services.relationships.expireMutes(), 1, 'the job removes the expired row');
  const forever = await h.api(ann.token, 'POST', `/api/v1/accounts/${cat.id}/mute`);
  assert.is(forever.body.muting_notifications, true, 'notifications are muted by default');
  assert.is(
    (await h.api(ann.token, 'GET', '/api/v1/mutes')).body[0].mute_expires_at,
    null,
    'a mute without end says null',
  );
  assert.is((await h.api(ann.token, 'POST', `/api/v1/accounts/${cat.id}/mute`, { duration: 'soon' })).status, 400);
  await h.api(ann.token, 'POST', `/api/v1/accounts/${cat.id}/unmute`);
});

test('domain blocks: create, list, delete; relationships show domain_blocking', async () => {
  assert.is((await h.api(ann.token, 'POST', '/api/v1/domain_blocks', { domain: 'spam.example' })).status, 200);
  await h.api(ann.token, 'POST', '/api/v1/domain_blocks', { domain: 'SPAM.example' });
  assert.equal((await h.api(ann.token, 'GET', '/api/v1/domain_blocks')).body, ['spam.example']);
  assert.is((await h.api(ann.token, 'POST', '/api/v1/domain_blocks', { domain: 'not a domain' })).status, 422);
  assert.is((await h.api(ann.token, 'POST', '/api/v1/domain_blocks', {})).status, 400);
  await h.api(ann.token, 'DELETE', '/api/v1/domain_blocks', { domain: 'spam.example' });
  assert.equal((await h.api(ann.token, 'GET', '/api/v1/domain_blocks')).body, []);
  assert.is((await rel(ann, ben)).domain_blocking, false);
});

test('private notes show in the relationship', async () => {
  const res = await h.api(ann.token, 'POST', `/api/v1/accounts/${ben.id}/note`, { comment: 'met at the market' });
  assert.is(res.body.note, 'met at the market');
  await h.api(ann.token, 'POST', `/api/v1/accounts/${ben.id}/note`, { comment: '' });
  assert.is((await rel(ann, ben)).note, '');
});

test('followers and following are paged lists with Link headers', async () => {
  for (const who of [ben, cat, dan]) await h.api(who.token, 'POST', `/api/v1/accounts/${ann.id}/follow`);
  const first = await h.api(null, 'GET', `/api/v1/accounts/${ann.id}/followers?limit=2`);
  assert.equal(
    first.body.map((a: any) => a.id),
    [dan.id, cat.id],
  );
  const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link')!)![1];
  const second = await h.api(null, 'GET', next.slice(h.url.length));
  assert.equal(
    second.body.map((a: any) => a.id),
    [ben.id],
  );
  assert.not.match(second.headers.get('link') ?? '', 'rel="next"');
  const following = await h.api(null, 'GET', `/api/v1/accounts/${ben.id}/following`);
  assert.ok(following.body.some((a: any) => a.id === ann.id));
});

test('familiar followers: who among the accounts one follows follows each account asked about', async () => {
  const [fx, fy, fz, target, other] = await Promise.all(
    ['fx', 'fy', 'fz', 'ftarget', 'fother'].map((name) => h.account(name)),
  );
  const follow = (who: TestAccount, whom: TestAccount) =>
    h.api(who.token, 'POST', `/api/v1/accounts/${whom.id}/follow`);
  await follow(fx, fy);
  await follow(fx, fz);
  await follow(fy, target);
  await follow(fz, target);
  await follow(other, target); // fx does not follow other
  await follow(fx, target); // fx itself is not listed
  const res = await h.api(
    fx.token,
    'GET',
    `/api/v1/accounts/familiar_followers?id[]=${target.id}&id[]=${other.id}&id[]=${target.id}`,
  );
  assert.is(res.status, 200);
  assert.equal(
    res.body.map((entry: { id: string }) => entry.id),
    [target.id, other.id],
  );
  assert.equal(
    res.body[0].accounts.map((a: { id: string }) => a.id),
    [fy.id, fz.id],
  );
  assert.equal(res.body[1].accounts, []);
  assert.is(res.body[0].accounts[0].username, 'fy');
  await h.admin.social.ctx.db('accounts').where({ id: fz.id }).update({ suspended_at: new Date().toISOString() });
  const after = await h.api(fx.token, 'GET', `/api/v1/accounts/familiar_followers?id[]=${target.id}`);
  assert.equal(
    after.body[0].accounts.map((a: { id: string }) => a.id),
    [fy.id],
    'suspended accounts are left out',
  );
});

test('domain blocks page newest first past ten of them (ids compared as numbers, not text)', async () => {
  const blocker = await h.account('blocker');
  const domains = Array.from({ length: 12 }, (_, i) => `d${i}.example`);
  for (const domain of domains)
    assert.is((await h.api(blocker.token, 'POST', '/api/v1/domain_blocks', { domain })).status, 200);
  const first = await h.api(blocker.token, 'GET', '/api/v1/domain_blocks?limit=5');
  assert.equal(first.body, domains.slice(7).reverse());
  const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
  const second = await h.api(blocker.token, 'GET', new URL(next!).pathname + new URL(next!).search);
  assert.equal(second.body, domains.slice(2, 7).reverse());
});

test("a report cites the target's statuses, a deleted one too, and keeps the category and comment", async () => {
  const kept = (await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'buy my stuff' })).body.id;
  const gone = (await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'buy it now' })).body.id;
  await h.api(bob.token, 'DELETE', `/api/v1/statuses/${gone}`);
  const res = await h.api(alice.token, 'POST', '/api/v1/reports', {
    account_id: bob.id,
    status_ids: [kept, gone],
    comment: 'spammy',
    category: 'spam',
    forward: true,
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.category, 'spam');
  assert.is(res.body.comment, 'spammy');
  assert.equal(res.body.status_ids, [kept, gone]);
  assert.is(res.body.forwarded, false, 'a local account is not forwarded anywhere');
  assert.is(res.body.target_account.id, bob.id);
  assert.is(res.body.action_taken, false);
  assert.is(res.headers.get('x-ratelimit-limit'), '400');
  const stored = await rawRows<any>((h.admin as any).db, `SELECT count(*) AS n FROM report_statuses`);
  assert.is(stored[0].n, 2);
  const db = (h.admin as any).db;
  const purge = await db.raw(`DELETE FROM statuses WHERE id = ?`, [gone]).then(
    () => 'deleted',
    (e: unknown) => e,
  );
  assert.ok(dialectOf(db).isForeignKeyViolation(purge), 'a reported status cannot be purged while its report exists');
});

test("violation needs known rule ids; unknown categories and others' statuses are refused; nothing stored", async () => {
  const ok = await h.api(alice.token, 'POST', '/api/v1/reports', {
    account_id: bob.id,
    category: 'violation',
    rule_ids: ['1'],
  });
  assert.is(ok.status, 200);
  assert.equal(ok.body.rule_ids, ['1']);
  const before = (await rawRows<any>((h.admin as any).db, `SELECT count(*) AS n FROM reports`))[0].n;
  assert.is(
    (
      await h.api(alice.token, 'POST', '/api/v1/reports', {
        account_id: bob.id,
        category: 'violation',
        rule_ids: ['42'],
      })
    ).status,
    422,
  );
  assert.is(
    (await h.api(alice.token, 'POST', '/api/v1/reports', { account_id: bob.id, category: 'rude' })).status,
    422,
  );
  const carols = (await h.api(carol.token, 'POST', '/api/v1/statuses', { status: 'carol' })).body.id;
  assert.is(
    (await h.api(alice.token, 'POST', '/api/v1/reports', { account_id: bob.id, status_ids: [carols] })).status,
    404,
  );
  assert.is((await h.api(alice.token, 'POST', '/api/v1/reports', { account_id: '123456' })).status, 404);
  assert.is((await h.api(alice.token, 'POST', '/api/v1/reports', {})).status, 422);
  assert.is(
    (await h.api(alice.token, 'POST', '/api/v1/reports', { account_id: bob.id, comment: 'x'.repeat(1001) })).status,
    422,
  );
  assert.is((await rawRows<any>((h.admin as any).db, `SELECT count(*) AS n FROM reports`))[0].n, before);
});

test('reports need write:reports', async () => {
  assert.is(
    (await h.api(await h.token('alice', 'read write:statuses'), 'POST', '/api/v1/reports', { account_id: bob.id }))
      .status,
    403,
  );
});

test.run();
