/** The profile directory and follow suggestions: who is listed, in which order, and who never is. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let ana: TestAccount, ben: TestAccount, cam: TestAccount, dot: TestAccount, eve: TestAccount, fay: TestAccount;

async function ok(who: TestAccount | null, method: string, path: string, body?: unknown) {
  const res = await h.api(who?.token ?? null, method, path, body);
  assert.is(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
  return res.body;
}
const ids = (list: Array<{ id: string }>) => list.map((a) => a.id);

test.before(async () => {
  h = await startSocialDaemon();
  // Created in this order: ids rise.
  const made: TestAccount[] = [];
  for (const name of ['ana', 'ben', 'cam', 'dot', 'eve', 'fay']) made.push(await h.account(name));
  [ana, ben, cam, dot, eve, fay] = made as [
    TestAccount,
    TestAccount,
    TestAccount,
    TestAccount,
    TestAccount,
    TestAccount,
  ];
  // Activity: cam posted last, then ana.
  await ok(ana, 'POST', '/api/v1/statuses', { status: 'first' });
  await ok(cam, 'POST', '/api/v1/statuses', { status: 'latest' });
  const db = h.admin.social.ctx.db;
  await db('accounts').where({ id: eve.id }).update({ discoverable: 0 });
  await db('accounts').where({ id: fay.id }).update({ silenced_at: new Date().toISOString() });
});
test.after(async () => {
  await h?.stop();
});

test('the directory: discoverable accounts only, by activity or newest first, paged by offset', async () => {
  const active = ids(await ok(null, 'GET', '/api/v1/directory?local=true'));
  assert.equal(active.slice(0, 2), [cam.id, ana.id], 'who posted last comes first');
  assert.not.ok(active.includes(eve.id), 'not discoverable');
  assert.not.ok(active.includes(fay.id), 'limited');
  assert.equal(ids(await ok(null, 'GET', '/api/v1/directory?order=new&local=true')), [dot.id, cam.id, ben.id, ana.id]);
  assert.equal(ids(await ok(null, 'GET', '/api/v1/directory?order=new&local=true&limit=2&offset=1')), [cam.id, ben.id]);
  assert.equal(await ok(null, 'GET', '/api/v1/directory?order=new&offset=999'), []);
  assert.equal(
    await ok(null, 'GET', '/api/v1/directory?offset=abc&limit=xyz'),
    [],
    'odd numbers: an empty page, not an error',
  );
});

test('suggestions: friends of friends first, then the most followed; never oneself, followed, blocked or dismissed', async () => {
  const viewer = await h.account('newcomer');
  await ok(ben, 'POST', `/api/v1/accounts/${cam.id}/follow`);
  await ok(ana, 'POST', `/api/v1/accounts/${cam.id}/follow`);
  await ok(ana, 'POST', `/api/v1/accounts/${dot.id}/follow`);
  // The newcomer follows ben, who follows cam: cam is a friend of a friend.
  await ok(viewer, 'POST', `/api/v1/accounts/${ben.id}/follow`);
  const v2 = await ok(viewer, 'GET', '/api/v2/suggestions');
  assert.equal(v2[0], { source: 'past_interactions', sources: ['friends_of_friends'], account: v2[0].account });
  assert.is(v2[0].account.id, cam.id);
  const rest = v2.slice(1).map((s: any) => s.account.id);
  assert.is(rest[0], dot.id, 'then the most followed');
  assert.ok(v2.slice(1).every((s: any) => s.source === 'global' && s.sources[0] === 'most_followed'));
  for (const never of [viewer.id, ben.id, eve.id, fay.id])
    assert.not.ok(ids(v2.map((s: any) => s.account)).includes(never));

  await ok(viewer, 'POST', `/api/v1/accounts/${ana.id}/block`);
  assert.equal(await ok(viewer, 'DELETE', `/api/v1/suggestions/${cam.id}`), {});
  assert.equal(await ok(viewer, 'DELETE', '/api/v1/suggestions/999999'), {}, 'an unknown account: nothing to do');
  const v1 = ids(await ok(viewer, 'GET', '/api/v1/suggestions'));
  assert.not.ok(v1.includes(cam.id), 'dismissed');
  assert.not.ok(v1.includes(ana.id), 'blocked');
  assert.ok(v1.includes(dot.id));
  assert.not.ok(
    ids(await ok(ana, 'GET', '/api/v1/directory')).includes(viewer.id),
    'who blocks you is not listed to you',
  );
});

test.run();
