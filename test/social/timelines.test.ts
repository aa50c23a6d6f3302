/** Home, public and hashtag timelines through HTTP, with Link headers and the public-preview switch. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let alice: TestAccount;
let bob: TestAccount;
let carol: TestAccount;
const ids: Record<string, string> = {};

test.before(async () => {
  h = await startSocialDaemon();
  [alice, bob, carol] = [await h.account('alice'), await h.account('bob'), await h.account('carol')];
  await h.api(alice.token, 'POST', `/api/v1/accounts/${bob.id}/follow`);
  const post = async (who: TestAccount, key: string, body: Record<string, unknown>) => {
    const res = await h.api(who.token, 'POST', '/api/v1/statuses', body);
    assert.is(res.status, 200, JSON.stringify(res.body));
    ids[key] = res.body.id;
  };
  await post(bob, 'bobPublic', { status: 'Hello from #Nestbox and #birds' });
  await post(bob, 'bobPrivate', { status: 'followers only', visibility: 'private' });
  await post(carol, 'carolPublic', { status: 'carol says #birds' });
  await post(alice, 'alicePublic', { status: 'alice here' });
  await post(carol, 'carolUnlisted', { status: 'quiet #birds', visibility: 'unlisted' });
});
test.after(async () => {
  await h?.stop();
});

test("home: own and followed accounts' statuses (private ones of followed included), newest first, Link header", async () => {
  const res = await h.api(alice.token, 'GET', '/api/v1/timelines/home?limit=2');
  assert.is(res.status, 200);
  assert.equal(
    res.body.map((s: any) => s.id),
    [ids.alicePublic, ids.bobPrivate],
  );
  const link = res.headers.get('link')!;
  assert.match(link, new RegExp(`max_id=${ids.bobPrivate}>; rel="next"`));
  assert.match(link, new RegExp(`min_id=${ids.alicePublic}>; rel="prev"`));
  const next = await h.api(alice.token, 'GET', `/api/v1/timelines/home?limit=2&max_id=${ids.bobPrivate}`);
  assert.equal(
    next.body.map((s: any) => s.id),
    [ids.bobPublic],
  );
  const since = await h.api(alice.token, 'GET', `/api/v1/timelines/home?min_id=${ids.bobPublic}&limit=1`);
  assert.equal(
    since.body.map((s: any) => s.id),
    [ids.bobPrivate],
  );
});

test("home follows the follow graph: unfollowing removes an account's posts, following brings its earlier posts in", async () => {
  await h.api(alice.token, 'POST', `/api/v1/accounts/${bob.id}/unfollow`);
  assert.equal(
    (await h.api(alice.token, 'GET', '/api/v1/timelines/home')).body.map((s: any) => s.id),
    [ids.alicePublic],
  );
  await h.api(alice.token, 'POST', `/api/v1/accounts/${carol.id}/follow`);
  assert.equal(
    (await h.api(alice.token, 'GET', '/api/v1/timelines/home')).body.map((s: any) => s.id),
    [ids.carolUnlisted, ids.alicePublic, ids.carolPublic],
  );
  await h.api(alice.token, 'POST', `/api/v1/accounts/${carol.id}/unfollow`);
  await h.api(alice.token, 'POST', `/api/v1/accounts/${bob.id}/follow`);
  const deleted = (await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'short-lived' })).body.id;
  assert.is((await h.api(alice.token, 'GET', '/api/v1/timelines/home?limit=1')).body[0].id, deleted);
  await h.api(bob.token, 'DELETE', `/api/v1/statuses/${deleted}`);
  assert.is(
    (await h.api(alice.token, 'GET', '/api/v1/timelines/home?limit=1')).body[0].id,
    ids.alicePublic,
    'deleted statuses leave the feed',
  );
});

test('home needs read:statuses and a user', async () => {
  assert.is((await h.api(null, 'GET', '/api/v1/timelines/home')).status, 401);
  assert.is((await h.api(await h.token('alice', 'write'), 'GET', '/api/v1/timelines/home')).status, 403);
});

test('public: public statuses only, local and remote options, only_media, no token needed with public preview', async () => {
  const res = await h.api(null, 'GET', '/api/v1/timelines/public');
  assert.is(res.status, 200);
  assert.equal(
    res.body.map((s: any) => s.id),
    [ids.alicePublic, ids.carolPublic, ids.bobPublic],
  );
  const local = await h.api(null, 'GET', '/api/v1/timelines/public?local=true');
  assert.is(local.body.length, 3);
  const remote = await h.api(null, 'GET', '/api/v1/timelines/public?remote=true');
  assert.equal(remote.body, []);
  const media = await h.api(null, 'GET', '/api/v1/timelines/public?only_media=true');
  assert.equal(media.body, []);
  const paged = await h.api(null, 'GET', '/api/v1/timelines/public?limit=1&local=true');
  assert.match(paged.headers.get('link')!, /local=true&max_id=/);
});

test('public: accounts the viewer blocks are left out', async () => {
  await h.api(alice.token, 'POST', `/api/v1/accounts/${carol.id}/block`);
  const res = await h.api(alice.token, 'GET', '/api/v1/timelines/public');
  assert.equal(
    res.body.map((s: any) => s.id),
    [ids.alicePublic, ids.bobPublic],
  );
  await h.api(alice.token, 'POST', `/api/v1/accounts/${carol.id}/unblock`);
});

test('tag: public statuses with the hashtag (any case), any/all/none, tags in the status JSON', async () => {
  const res = await h.api(null, 'GET', '/api/v1/timelines/tag/Birds');
  assert.equal(
    res.body.map((s: any) => s.id),
    [ids.carolPublic, ids.bobPublic],
  );
  assert.equal(
    res.body[1].tags.map((t: any) => t.name),
    ['birds', 'nestbox'],
  );
  assert.match(
    res.body[1].content,
    new RegExp(`<a href="${h.url}/tags/nestbox" class="mention hashtag" rel="tag">#<span>Nestbox</span></a>`),
  );
  const all = await h.api(null, 'GET', '/api/v1/timelines/tag/birds?all[]=nestbox');
  assert.equal(
    all.body.map((s: any) => s.id),
    [ids.bobPublic],
  );
  const none = await h.api(null, 'GET', '/api/v1/timelines/tag/birds?none[]=nestbox');
  assert.equal(
    none.body.map((s: any) => s.id),
    [ids.carolPublic],
  );
  const any = await h.api(null, 'GET', '/api/v1/timelines/tag/nestbox?any[]=birds');
  assert.equal(
    any.body.map((s: any) => s.id),
    [ids.carolPublic, ids.bobPublic],
  );
  const paged = await h.api(null, 'GET', `/api/v1/timelines/tag/birds?limit=1&max_id=${ids.carolPublic}`);
  assert.equal(
    paged.body.map((s: any) => s.id),
    [ids.bobPublic],
  );
  const unknown = await h.api(null, 'GET', '/api/v1/timelines/tag/nothinghere');
  assert.equal(unknown.body, []);
});

test('with public preview off, public and tag timelines need a user (401), and work with one', async () => {
  const closed = await startSocialDaemon({ NESTBOX_PUBLIC_PREVIEW: 'false' });
  try {
    const dave = await closed.account('dave');
    assert.is((await closed.api(null, 'GET', '/api/v1/timelines/public')).status, 401);
    assert.is((await closed.api(null, 'GET', '/api/v1/timelines/tag/birds')).status, 401);
    assert.is((await closed.api(dave.token, 'GET', '/api/v1/timelines/public')).status, 200);
    assert.is((await closed.api(dave.token, 'GET', '/api/v1/timelines/tag/birds')).status, 200);
    const instance = await closed.api(null, 'GET', '/api/v2/instance');
    assert.is(instance.body.configuration.timelines_access.live_feeds.local, 'authenticated');
  } finally {
    await closed.stop();
  }
});

test.run();
