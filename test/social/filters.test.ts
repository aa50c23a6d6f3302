/** Filters v2 with keywords, all keyword paths, `filtered` in statuses, through HTTP. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let alice: TestAccount;
let bob: TestAccount;

test.before(async () => {
  h = await startSocialDaemon();
  alice = await h.account('alice');
  bob = await h.account('bob');
});
test.after(async () => {
  await h?.stop();
});

test('create with keywords_attributes, list, show; contexts and action validated', async () => {
  const res = await h.api(alice.token, 'POST', '/api/v2/filters', {
    title: 'Spoilers',
    context: ['home', 'public'],
    filter_action: 'warn',
    keywords_attributes: [
      { keyword: 'finale', whole_word: true },
      { keyword: 'plot', whole_word: false },
    ],
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.title, 'Spoilers');
  assert.equal(res.body.context, ['home', 'public']);
  assert.equal(
    res.body.keywords.map((k: any) => [k.keyword, k.whole_word]),
    [
      ['finale', true],
      ['plot', false],
    ],
  );
  assert.type(res.body.id, 'string');
  const list = await h.api(alice.token, 'GET', '/api/v2/filters');
  assert.is(list.body.length, 1);
  assert.is((await h.api(bob.token, 'GET', `/api/v2/filters/${res.body.id}`)).status, 404);
  assert.is((await h.api(alice.token, 'POST', '/api/v2/filters', { title: 'x', context: ['nowhere'] })).status, 422);
  assert.is((await h.api(alice.token, 'POST', '/api/v2/filters', { title: 'x', context: [] })).status, 422);
  assert.is(
    (await h.api(alice.token, 'POST', '/api/v2/filters', { title: 'x', context: ['home'], filter_action: 'explode' }))
      .status,
    422,
  );
  assert.is((await h.api(alice.token, 'POST', '/api/v2/filters', { title: '', context: ['home'] })).status, 422);
  assert.is((await h.api(alice.token, 'GET', '/api/v2/filters')).body.length, 1, 'refused filters are not stored');
});

test('update edits, deletes and adds keywords through keywords_attributes', async () => {
  const created = (
    await h.api(alice.token, 'POST', '/api/v2/filters', {
      title: 'Sports',
      context: ['home'],
      keywords_attributes: [{ keyword: 'goal' }, { keyword: 'match' }],
    })
  ).body;
  const [goal, match] = created.keywords;
  const res = await h.api(alice.token, 'PUT', `/api/v2/filters/${created.id}`, {
    title: 'Sport',
    filter_action: 'hide',
    keywords_attributes: [
      { id: goal.id, keyword: 'goals', whole_word: false },
      { id: match.id, _destroy: true },
      { keyword: 'referee' },
    ],
  });
  assert.is(res.status, 200);
  assert.is(res.body.title, 'Sport');
  assert.is(res.body.filter_action, 'hide');
  assert.equal(
    res.body.keywords.map((k: any) => [k.keyword, k.whole_word]),
    [
      ['goals', false],
      ['referee', true],
    ],
  );
  const unknown = await h.api(alice.token, 'PUT', `/api/v2/filters/${created.id}`, {
    keywords_attributes: [{ id: '999999', keyword: 'x' }],
  });
  assert.is(unknown.status, 404);
  assert.is(
    (await h.api(alice.token, 'GET', `/api/v2/filters/${created.id}`)).body.keywords.length,
    2,
    'nothing changed',
  );
  assert.is((await h.api(alice.token, 'DELETE', `/api/v2/filters/${created.id}`)).status, 200);
  assert.is((await h.api(alice.token, 'GET', `/api/v2/filters/${created.id}`)).status, 404);
});

test('keywords of a filter, adding one, and one keyword at all three paths', async () => {
  const filter = (await h.api(alice.token, 'POST', '/api/v2/filters', { title: 'Words', context: ['thread'] })).body;
  const added = await h.api(alice.token, 'POST', `/api/v2/filters/${filter.id}/keywords`, {
    keyword: 'weather',
    whole_word: false,
  });
  assert.is(added.status, 200);
  assert.equal(
    (await h.api(alice.token, 'GET', `/api/v2/filters/${filter.id}/keywords`)).body.map((k: any) => k.keyword),
    ['weather'],
  );
  const id = added.body.id;
  for (const path of ['/api/v2/filters/keywords/', '/api/v2/filter_keywords/', '/api/v1/filters/keywords/']) {
    const res = await h.api(alice.token, 'GET', path + id);
    assert.is(res.status, 200, path);
    assert.is(res.body.id, id);
    assert.is((await h.api(bob.token, 'GET', path + id)).status, 404, `${path} of another account`);
  }
  const put = await h.api(alice.token, 'PUT', `/api/v1/filters/keywords/${id}`, { keyword: 'storm' });
  assert.is(put.body.keyword, 'storm');
  assert.is((await h.api(alice.token, 'DELETE', `/api/v2/filter_keywords/${id}`)).status, 200);
  assert.is((await h.api(alice.token, 'GET', `/api/v2/filters/keywords/${id}`)).status, 404);
});

test('statuses carry `filtered` results for the viewer, whole-word matching included', async () => {
  const post = async (text: string) => (await h.api(bob.token, 'POST', '/api/v1/statuses', { status: text })).body.id;
  const hit = await post('What a finale that was');
  const partial = await post('The finales are overrated');
  const plot = await post('The subplot thickens');
  const show = async (id: string) => (await h.api(alice.token, 'GET', `/api/v1/statuses/${id}`)).body.filtered;
  const filtered = await show(hit);
  assert.is(filtered.length, 1);
  assert.is(filtered[0].filter.title, 'Spoilers');
  assert.equal(filtered[0].keyword_matches, ['finale']);
  assert.equal(await show(partial), [], 'whole word: "finales" does not match "finale"');
  assert.equal((await show(plot))[0].keyword_matches, ['plot'], 'not whole word: "subplot" matches "plot"');
  assert.equal(
    (await h.api(bob.token, 'GET', `/api/v1/statuses/${hit}`)).body.filtered,
    [],
    'other viewers are not filtered',
  );
  const home = await h.api(alice.token, 'GET', '/api/v1/timelines/public');
  assert.is(home.body.find((s: any) => s.id === hit).filtered.length, 1);
});

test("a change to the viewer's filters shows in the next status rendered; an expired filter stops filtering", async () => {
  const carol = await h.account('carol');
  const status = (await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'The weather is lovely today' })).body
    .id;
  const filteredTitles = async () =>
    ((await h.api(carol.token, 'GET', `/api/v1/statuses/${status}`)).body.filtered as any[]).map((f) => f.filter.title);
  assert.equal(await filteredTitles(), []);
  const created = await h.api(carol.token, 'POST', '/api/v2/filters', {
    title: 'Weather',
    context: ['home'],
    keywords_attributes: [{ keyword: 'weather' }],
  });
  assert.equal(await filteredTitles(), ['Weather']);
  const keywordId = created.body.keywords[0].id;
  await h.api(carol.token, 'PUT', `/api/v2/filters/keywords/${keywordId}`, { keyword: 'lovely' });
  const renamed = (await h.api(carol.token, 'GET', `/api/v1/statuses/${status}`)).body.filtered;
  assert.equal(renamed[0].keyword_matches, ['lovely']);
  await h.api(carol.token, 'DELETE', `/api/v2/filters/${created.body.id}`);
  assert.equal(await filteredTitles(), []);
  await h.api(carol.token, 'POST', '/api/v2/filters', {
    title: 'Brief',
    context: ['home'],
    expires_in: 1,
    keywords_attributes: [{ keyword: 'weather' }],
  });
  assert.equal(await filteredTitles(), ['Brief']);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.equal(await filteredTitles(), [], 'expired');
});

test('filters v1: each keyword a filter; create, show, update, delete; shared filters not changed from here', async () => {
  const created = await h.api(bob.token, 'POST', '/api/v1/filters', {
    phrase: 'crypto',
    context: ['home', 'notifications'],
    irreversible: true,
    expires_in: 3600,
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.equal(
    { ...created.body, id: 'x', expires_at: 'x' },
    {
      id: 'x',
      phrase: 'crypto',
      context: ['home', 'notifications'],
      whole_word: true,
      expires_at: 'x',
      irreversible: true,
    },
  );
  assert.ok(Date.parse(created.body.expires_at) > Date.now());
  const asV2 = (await h.api(bob.token, 'GET', '/api/v2/filters')).body.find(
    (f: any) => f.keywords[0]?.id === created.body.id,
  );
  assert.equal(
    [asV2.title, asV2.filter_action, asV2.keywords[0].keyword],
    ['crypto', 'hide', 'crypto'],
    'a v2 filter titled by the phrase',
  );

  const updated = await h.api(bob.token, 'PUT', `/api/v1/filters/${created.body.id}`, {
    phrase: 'nft',
    whole_word: false,
    irreversible: false,
    context: ['public'],
  });
  assert.is(updated.status, 200, JSON.stringify(updated.body));
  assert.equal(
    [updated.body.id, updated.body.phrase, updated.body.whole_word, updated.body.irreversible, updated.body.context],
    [created.body.id, 'nft', false, false, ['public']],
  );
  assert.equal(await (await h.api(bob.token, 'GET', `/api/v1/filters/${created.body.id}`)).body, updated.body);

  // A v2 filter with two keywords shows as two v1 filters, which cannot be changed one by one.
  const shared = await h.api(bob.token, 'POST', '/api/v2/filters', {
    title: 'Sports',
    context: ['home'],
    keywords_attributes: [{ keyword: 'goal' }, { keyword: 'match' }],
  });
  const v1 = (await h.api(bob.token, 'GET', '/api/v1/filters')).body as any[];
  assert.equal(v1.map((f) => f.phrase).sort(), ['goal', 'match', 'nft']);
  const goal = v1.find((f) => f.phrase === 'goal');
  const refused = await h.api(bob.token, 'PUT', `/api/v1/filters/${goal.id}`, { phrase: 'score' });
  assert.is(refused.status, 422);
  assert.match(refused.body.error, 'apply to more than one filter keyword');
  assert.is((await h.api(alice.token, 'GET', `/api/v1/filters/${goal.id}`)).status, 404, "not alice's");
  assert.equal((await h.api(bob.token, 'DELETE', `/api/v1/filters/${goal.id}`)).body, {});
  assert.equal(
    (await h.api(bob.token, 'GET', `/api/v2/filters/${shared.body.id}`)).body.keywords.map((k: any) => k.keyword),
    ['match'],
  );
  assert.is((await h.api(bob.token, 'POST', '/api/v1/filters', { phrase: ' ', context: ['home'] })).status, 422);
  assert.is((await h.api(bob.token, 'POST', '/api/v1/filters', { phrase: 'x', context: ['nowhere'] })).status, 422);
});

test('filters need read:filters / write:filters', async () => {
  assert.is((await h.api(await h.token('alice', 'read:statuses'), 'GET', '/api/v2/filters')).status, 403);
  assert.is(
    (await h.api(await h.token('alice', 'read:filters'), 'POST', '/api/v2/filters', { title: 'x', context: ['home'] }))
      .status,
    403,
  );
  assert.is((await h.api(null, 'GET', '/api/v2/filters')).status, 401);
});

test.run();
