/** Featured hashtags and endorsed accounts on profiles. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let gia: TestAccount, hal: TestAccount, ivo: TestAccount;

async function ok(who: TestAccount | null, method: string, path: string, body?: unknown) {
  const res = await h.api(who?.token ?? null, method, path, body);
  assert.is(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
  return res.body;
}

test.before(async () => {
  h = await startSocialDaemon();
  [gia, hal, ivo] = await Promise.all(['gia', 'hal', 'ivo'].map((name) => h.account(name)));
});
test.after(async () => {
  await h?.stop();
});

test('featuring hashtags: counted over public posts, listed on the profile, suggested from use, at most 10', async () => {
  await ok(gia, 'POST', '/api/v1/statuses', { status: 'baking #Bread today' });
  await ok(gia, 'POST', '/api/v1/statuses', { status: 'more #bread and #cheese' });
  await ok(gia, 'POST', '/api/v1/statuses', { status: 'private #bread', visibility: 'private' });

  const suggested = await ok(gia, 'GET', '/api/v1/featured_tags/suggestions');
  assert.equal(
    suggested.map((t: { name: string }) => t.name),
    ['bread', 'cheese'],
    'most used first',
  );

  const featured = await ok(gia, 'POST', '/api/v1/featured_tags', { name: '#bread' });
  assert.is(featured.name.toLowerCase(), 'bread');
  assert.is(featured.statuses_count, '2', 'public and unlisted posts only, as a string');
  assert.match(featured.last_status_at, /^\d{4}-\d\d-\d\d$/);
  assert.match(featured.url, /\/@gia\/tagged\/bread$/);
  assert.equal(await ok(null, 'GET', `/api/v1/accounts/${gia.id}/featured_tags`), [featured]);
  assert.equal(
    (await ok(gia, 'GET', '/api/v1/featured_tags/suggestions')).map((t: { name: string }) => t.name),
    ['cheese'],
  );
  assert.is((await ok(gia, 'GET', '/api/v1/tags/bread')).featuring, true);
  assert.is((await ok(hal, 'GET', '/api/v1/tags/bread')).featuring, false, "featuring is the viewer's");

  const unused = await ok(gia, 'POST', '/api/v1/tags/sourdough/feature');
  assert.is(unused.featuring, true);
  assert.equal(
    (await ok(gia, 'GET', '/api/v1/featured_tags')).map((t: any) => [
      t.name.toLowerCase(),
      t.statuses_count,
      t.last_status_at,
    ]),
    [
      ['bread', '2', featured.last_status_at],
      ['sourdough', '0', null],
    ],
  );
  assert.is((await ok(gia, 'POST', '/api/v1/tags/sourdough/unfeature')).featuring, false);

  assert.is((await h.api(gia.token, 'POST', '/api/v1/featured_tags', { name: 'not a tag!' })).status, 422);
  for (let i = 0; i < 9; i++) await ok(gia, 'POST', '/api/v1/featured_tags', { name: `tag${i}` });
  const eleventh = await h.api(gia.token, 'POST', '/api/v1/featured_tags', { name: 'onetoomany' });
  assert.is(eleventh.status, 422);
  assert.is(eleventh.body.error, 'Validation failed: You can only feature up to 10 hashtags');
  assert.is(
    (await ok(gia, 'POST', '/api/v1/featured_tags', { name: 'bread' })).id,
    featured.id,
    'featuring again changes nothing',
  );

  assert.equal(await ok(gia, 'DELETE', `/api/v1/featured_tags/${featured.id}`), {});
  assert.is((await h.api(gia.token, 'DELETE', `/api/v1/featured_tags/${featured.id}`)).status, 404);
  assert.is((await ok(gia, 'GET', '/api/v1/featured_tags')).length, 9);
});

test('endorsing: only accounts one follows; the relationship says so; the list ends with the follow', async () => {
  const refused = await h.api(gia.token, 'POST', `/api/v1/accounts/${hal.id}/endorse`);
  assert.is(refused.status, 422);
  assert.is(refused.body.error, 'Validation failed: You must be already following the person you want to endorse');
  assert.is((await h.api(gia.token, 'POST', `/api/v1/accounts/${gia.id}/endorse`)).status, 422);
  assert.is((await h.api(gia.token, 'POST', '/api/v1/accounts/999999/endorse')).status, 404);

  await ok(gia, 'POST', `/api/v1/accounts/${hal.id}/follow`);
  await ok(gia, 'POST', `/api/v1/accounts/${ivo.id}/follow`);
  assert.is((await ok(gia, 'POST', `/api/v1/accounts/${hal.id}/endorse`)).endorsed, true);
  assert.is((await ok(gia, 'POST', `/api/v1/accounts/${ivo.id}/pin`)).endorsed, true);
  assert.equal(
    (await ok(gia, 'GET', '/api/v1/endorsements')).map((a: { id: string }) => a.id),
    [ivo.id, hal.id],
  );
  assert.equal(
    (await ok(null, 'GET', `/api/v1/accounts/${gia.id}/endorsements`)).map((a: { id: string }) => a.id),
    [ivo.id, hal.id],
  );
  const page = await h.api(gia.token, 'GET', '/api/v1/endorsements?limit=1');
  assert.match(page.headers.get('link') ?? '', /rel="next"/);

  assert.is((await ok(gia, 'POST', `/api/v1/accounts/${ivo.id}/unendorse`)).endorsed, false);
  await ok(gia, 'POST', `/api/v1/accounts/${hal.id}/unfollow`);
  assert.equal(await ok(gia, 'GET', '/api/v1/endorsements'), [], 'unfollowing ends the endorsement');
  assert.is((await ok(gia, 'GET', `/api/v1/accounts/relationships?id[]=${hal.id}`))[0].endorsed, false);
});

test('an endorsement ends with the follow however it ends: removed as a follower, blocked either way', async () => {
  const endorsed = async () => (await ok(gia, 'GET', '/api/v1/endorsements')).map((a: { id: string }) => a.id);
  const endorse = async (target: TestAccount) => {
    await ok(gia, 'POST', `/api/v1/accounts/${target.id}/follow`);
    await ok(gia, 'POST', `/api/v1/accounts/${target.id}/endorse`);
    assert.ok((await endorsed()).includes(target.id));
  };
  await endorse(hal);
  await ok(hal, 'POST', `/api/v1/accounts/${gia.id}/remove_from_followers`);
  assert.equal(await endorsed(), [], 'hal removed gia from its followers');
  await endorse(ivo);
  await ok(ivo, 'POST', `/api/v1/accounts/${gia.id}/block`);
  assert.equal(await endorsed(), [], 'ivo blocked gia');
  await ok(ivo, 'POST', `/api/v1/accounts/${gia.id}/unblock`);
  await endorse(ivo);
  await ok(gia, 'POST', `/api/v1/accounts/${ivo.id}/block`);
  assert.equal(await endorsed(), [], 'gia blocked ivo');
});

test.run();
