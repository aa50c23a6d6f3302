/**
 * Hashtags as apps use them: the tag entity, following a tag, followed tags in the home feed. And
 * what a profile features: featured hashtags and endorsed accounts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let mia: TestAccount, nia: TestAccount, ola: TestAccount;
let gia: TestAccount, hal: TestAccount, ivo: TestAccount;

async function ok(token: string | null, method: string, path: string, body?: unknown) {
  const res = await h.api(token, method, path, body);
  assert.is(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
  return res.body;
}

const okAs = (who: TestAccount | null, method: string, path: string, body?: unknown) =>
  ok(who?.token ?? null, method, path, body);

const post = async (who: TestAccount, status: string, visibility = 'public') =>
  (await ok(who.token, 'POST', '/api/v1/statuses', { status, visibility })).id as string;
const home = async (who: TestAccount) =>
  (await ok(who.token, 'GET', '/api/v1/timelines/home?limit=40')).map((s: { id: string }) => s.id) as string[];

test.before(async () => {
  h = await startSocialDaemon();
  [mia, nia, ola] = await Promise.all(['mia', 'nia', 'ola'].map((name) => h.account(name)));
  [gia, hal, ivo] = await Promise.all(['gia', 'hal', 'ivo'].map((name) => h.account(name)));
});
test.after(async () => {
  await h?.stop();
});

test('a tag is answered whether used or not, with a week of history; an invalid name is 404', async () => {
  const unused = await ok(null, 'GET', '/api/v1/tags/NeverUsed');
  assert.is(unused.name, 'neverused');
  assert.match(unused.url, /\/tags\/neverused$/);
  assert.is(unused.following, false);
  assert.is(unused.history.length, 7);
  await post(nia, 'first #Wrens of the year');
  const used = await ok(null, 'GET', '/api/v1/tags/wrens');
  assert.equal(used.history[0], { day: used.history[0].day, uses: '1', accounts: '1' });
  assert.is(unused.id, '', 'a hashtag nobody used has no id yet');
  assert.is((await h.api(null, 'GET', '/api/v1/tags/not%20valid!')).status, 404);
  assert.is((await h.api(null, 'GET', '/api/v1/tags/%25')).status, 404, 'a percent sign is not a hashtag (and no 500)');
  assert.is((await ok(null, 'GET', '/api/v1/tags/caf%C3%A9')).name, 'café');
  assert.is((await h.api(null, 'GET', '/api/v1/tags/1234')).status, 404, 'all digits is not a hashtag');
});

test('an edit retags: a hashtag added is linked and in the tag timeline, one taken out leaves it', async () => {
  const id = await post(ola, 'plain words, #Robins first');
  const edited = await ok(ola.token, 'PUT', `/api/v1/statuses/${id}`, { status: 'now about #Starlings only' });
  assert.match(
    edited.content,
    /<a href="[^"]+\/tags\/starlings" class="mention hashtag" rel="tag">#<span>Starlings<\/span><\/a>/,
  );
  assert.equal(
    edited.tags.map((t: { name: string }) => t.name),
    ['starlings'],
  );
  const tagged = async (tag: string) =>
    (await ok(null, 'GET', `/api/v1/timelines/tag/${tag}`)).map((s: { id: string }) => s.id) as string[];
  assert.ok((await tagged('starlings')).includes(id));
  assert.not.ok((await tagged('robins')).includes(id), 'the hashtag taken out no longer finds it');
  const history = await ok(null, 'GET', `/api/v1/statuses/${id}/history`);
  assert.match(
    history[history.length - 1].content,
    /class="mention hashtag"/,
    'the new version in the history is linked',
  );
});

test('following a tag: the tag says so to its follower only, and followed_tags lists it', async () => {
  const followed = await ok(mia.token, 'POST', '/api/v1/tags/Birds/follow');
  assert.is(followed.name, 'birds');
  assert.is(followed.following, true);
  assert.is((await ok(mia.token, 'GET', '/api/v1/tags/birds')).following, true);
  assert.is((await ok(ola.token, 'GET', '/api/v1/tags/birds')).following, false);
  assert.is((await ok(null, 'GET', '/api/v1/tags/birds')).following, false);
  assert.equal(
    (await ok(mia.token, 'GET', '/api/v1/followed_tags')).map((t: { name: string }) => t.name),
    ['birds'],
  );
  const searched = await ok(mia.token, 'GET', '/api/v2/search?q=%23birds&type=hashtags');
  assert.is(searched.hashtags[0].following, true);
  assert.is((await h.api(mia.token, 'POST', '/api/v1/tags/not%20valid!/follow')).status, 404);
});

test('public posts with a followed tag join the home feed; unfollowing the tag takes them out', async () => {
  const tagged = await post(nia, 'a robin! #birds');
  const unlisted = await post(nia, 'quietly #birds', 'unlisted');
  const untagged = await post(nia, 'no tag here');
  const feed = await home(mia);
  assert.ok(feed.includes(tagged), 'the public tagged post');
  assert.not.ok(feed.includes(unlisted) || feed.includes(untagged), 'not unlisted ones, not others');

  // Following the author too: their tagged post stays when the tag goes; unfollowing keeps what the tag brought.
  await ok(mia.token, 'POST', `/api/v1/accounts/${ola.id}/follow`);
  const fromOla = await post(ola, 'blue tit #birds');
  await ok(mia.token, 'POST', '/api/v1/tags/birds/unfollow');
  const after = await home(mia);
  assert.not.ok(after.includes(tagged), 'gone with the tag');
  assert.ok(after.includes(fromOla), 'kept: mia follows ola');
  assert.equal(await ok(mia.token, 'GET', '/api/v1/followed_tags'), []);

  await ok(mia.token, 'POST', '/api/v1/tags/birds/follow');
  const later = await post(ola, 'another one #birds');
  await ok(mia.token, 'POST', `/api/v1/accounts/${ola.id}/unfollow`);
  assert.ok((await home(mia)).includes(later), 'kept: the followed tag brought it');
});

test('followed_tags pages newest follow first, with Link', async () => {
  await ok(ola.token, 'POST', '/api/v1/tags/first/follow');
  await ok(ola.token, 'POST', '/api/v1/tags/second/follow');
  const page = await h.api(ola.token, 'GET', '/api/v1/followed_tags?limit=1');
  assert.equal(
    page.body.map((t: { name: string }) => t.name),
    ['second'],
  );
  const next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
  assert.ok(next);
  const older = await h.api(ola.token, 'GET', new URL(next).pathname + new URL(next).search);
  assert.equal(
    older.body.map((t: { name: string }) => t.name),
    ['first'],
  );
});

test('featuring hashtags: counted over public posts, listed on the profile, suggested from use, at most 10', async () => {
  await okAs(gia, 'POST', '/api/v1/statuses', { status: 'baking #Bread today' });
  await okAs(gia, 'POST', '/api/v1/statuses', { status: 'more #bread and #cheese' });
  await okAs(gia, 'POST', '/api/v1/statuses', { status: 'private #bread', visibility: 'private' });

  const suggested = await okAs(gia, 'GET', '/api/v1/featured_tags/suggestions');
  assert.equal(
    suggested.map((t: { name: string }) => t.name),
    ['bread', 'cheese'],
    'most used first',
  );

  const featured = await okAs(gia, 'POST', '/api/v1/featured_tags', { name: '#bread' });
  assert.is(featured.name.toLowerCase(), 'bread');
  assert.is(featured.statuses_count, '2', 'public and unlisted posts only, as a string');
  assert.match(featured.last_status_at, /^\d{4}-\d\d-\d\d$/);
  assert.match(featured.url, /\/@gia\/tagged\/bread$/);
  assert.equal(await okAs(null, 'GET', `/api/v1/accounts/${gia.id}/featured_tags`), [featured]);
  assert.equal(
    (await okAs(gia, 'GET', '/api/v1/featured_tags/suggestions')).map((t: { name: string }) => t.name),
    ['cheese'],
  );
  assert.is((await okAs(gia, 'GET', '/api/v1/tags/bread')).featuring, true);
  assert.is((await okAs(hal, 'GET', '/api/v1/tags/bread')).featuring, false, "featuring is the viewer's");

  const unused = await okAs(gia, 'POST', '/api/v1/tags/sourdough/feature');
  assert.is(unused.featuring, true);
  assert.equal(
    (await okAs(gia, 'GET', '/api/v1/featured_tags')).map((t: any) => [
      t.name.toLowerCase(),
      t.statuses_count,
      t.last_status_at,
    ]),
    [
      ['bread', '2', featured.last_status_at],
      ['sourdough', '0', null],
    ],
  );
  assert.is((await okAs(gia, 'POST', '/api/v1/tags/sourdough/unfeature')).featuring, false);

  assert.is((await h.api(gia.token, 'POST', '/api/v1/featured_tags', { name: 'not a tag!' })).status, 422);
  for (let i = 0; i < 9; i++) await okAs(gia, 'POST', '/api/v1/featured_tags', { name: `tag${i}` });
  const eleventh = await h.api(gia.token, 'POST', '/api/v1/featured_tags', { name: 'onetoomany' });
  assert.is(eleventh.status, 422);
  assert.is(eleventh.body.error, 'Validation failed: You can only feature up to 10 hashtags');
  assert.is(
    (await okAs(gia, 'POST', '/api/v1/featured_tags', { name: 'bread' })).id,
    featured.id,
    'featuring again changes nothing',
  );

  assert.equal(await okAs(gia, 'DELETE', `/api/v1/featured_tags/${featured.id}`), {});
  assert.is((await h.api(gia.token, 'DELETE', `/api/v1/featured_tags/${featured.id}`)).status, 404);
  assert.is((await okAs(gia, 'GET', '/api/v1/featured_tags')).length, 9);
});

test('endorsing: only accounts one follows; the relationship says so; the list ends with the follow', async () => {
  const refused = await h.api(gia.token, 'POST', `/api/v1/accounts/${hal.id}/endorse`);
  assert.is(refused.status, 422);
  assert.is(refused.body.error, 'Validation failed: You must be already following the person you want to endorse');
  assert.is((await h.api(gia.token, 'POST', `/api/v1/accounts/${gia.id}/endorse`)).status, 422);
  assert.is((await h.api(gia.token, 'POST', '/api/v1/accounts/999999/endorse')).status, 404);

  await okAs(gia, 'POST', `/api/v1/accounts/${hal.id}/follow`);
  await okAs(gia, 'POST', `/api/v1/accounts/${ivo.id}/follow`);
  assert.is((await okAs(gia, 'POST', `/api/v1/accounts/${hal.id}/endorse`)).endorsed, true);
  assert.is((await okAs(gia, 'POST', `/api/v1/accounts/${ivo.id}/pin`)).endorsed, true);
  assert.equal(
    (await okAs(gia, 'GET', '/api/v1/endorsements')).map((a: { id: string }) => a.id),
    [ivo.id, hal.id],
  );
  assert.equal(
    (await okAs(null, 'GET', `/api/v1/accounts/${gia.id}/endorsements`)).map((a: { id: string }) => a.id),
    [ivo.id, hal.id],
  );
  const page = await h.api(gia.token, 'GET', '/api/v1/endorsements?limit=1');
  assert.match(page.headers.get('link') ?? '', /rel="next"/);

  assert.is((await okAs(gia, 'POST', `/api/v1/accounts/${ivo.id}/unendorse`)).endorsed, false);
  await okAs(gia, 'POST', `/api/v1/accounts/${hal.id}/unfollow`);
  assert.equal(await okAs(gia, 'GET', '/api/v1/endorsements'), [], 'unfollowing ends the endorsement');
  assert.is((await okAs(gia, 'GET', `/api/v1/accounts/relationships?id[]=${hal.id}`))[0].endorsed, false);
});

test('an endorsement ends with the follow however it ends: removed as a follower, blocked either way', async () => {
  const endorsed = async () => (await okAs(gia, 'GET', '/api/v1/endorsements')).map((a: { id: string }) => a.id);
  const endorse = async (target: TestAccount) => {
    await okAs(gia, 'POST', `/api/v1/accounts/${target.id}/follow`);
    await okAs(gia, 'POST', `/api/v1/accounts/${target.id}/endorse`);
    assert.ok((await endorsed()).includes(target.id));
  };
  await endorse(hal);
  await okAs(hal, 'POST', `/api/v1/accounts/${gia.id}/remove_from_followers`);
  assert.equal(await endorsed(), [], 'hal removed gia from its followers');
  await endorse(ivo);
  await okAs(ivo, 'POST', `/api/v1/accounts/${gia.id}/block`);
  assert.equal(await endorsed(), [], 'ivo blocked gia');
  await okAs(ivo, 'POST', `/api/v1/accounts/${gia.id}/unblock`);
  await endorse(ivo);
  await okAs(gia, 'POST', `/api/v1/accounts/${ivo.id}/block`);
  assert.equal(await endorsed(), [], 'gia blocked ivo');
});

test.run();
