/** GET /api/v2/search: every rule of Mastodon's search API, on the real daemon's FTS5 indexes. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let alice: TestAccount;
let bob: TestAccount;
const posts: string[] = [];

test.before(async () => {
  h = await startSocialDaemon();
  alice = await h.account('alice');
  bob = await h.account('bobby');
  await h.account('bobcat');
  for (const text of [
    'The kingfisher came back today #kingfisher',
    'A kingfisher at the pond',
    'Nothing about birds',
    'kingfishers everywhere',
  ]) {
    posts.push((await h.api(bob.token, 'POST', '/api/v1/statuses', { status: text })).body.id);
  }
  await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'alice saw a kingfisher too', visibility: 'private' });
});
test.after(async () => {
  await h?.stop();
});

const search = (token: string | null, query: string) => h.api(token, 'GET', `/api/v2/search?${query}`);

test('returns accounts, statuses and rich hashtags', async () => {
  const res = await search(bob.token, 'q=kingfisher');
  assert.is(res.status, 200);
  assert.equal(
    res.body.statuses.map((s: any) => s.id),
    [posts[3], posts[1], posts[0]],
  );
  assert.is(res.body.hashtags[0].name, 'kingfisher');
  assert.is(res.body.hashtags[0].history.length, 7);
  assert.is(res.body.hashtags[0].history[0].uses, '1');
  assert.type(res.body.hashtags[0].history[0].day, 'string');
  const accounts = await search(alice.token, 'q=bob&type=accounts');
  assert.equal(accounts.body.accounts.map((a: any) => a.username).sort(), ['bobby', 'bobcat']);
});

test("private statuses of others are not found; one's own are", async () => {
  const bobs = await search(bob.token, 'q=alice%20saw&type=statuses');
  assert.equal(bobs.body.statuses, []);
  const alices = await search(alice.token, 'q=alice%20saw&type=statuses');
  assert.is(alices.body.statuses.length, 1);
});

test('paging only with a type: offset, max_id and min_id apply with type=statuses and are ignored without', async () => {
  const page1 = await search(bob.token, 'q=kingfisher&type=statuses&limit=1');
  assert.equal(
    page1.body.statuses.map((s: any) => s.id),
    [posts[3]],
  );
  const page2 = await search(bob.token, 'q=kingfisher&type=statuses&limit=1&offset=1');
  assert.equal(
    page2.body.statuses.map((s: any) => s.id),
    [posts[1]],
  );
  const older = await search(bob.token, `q=kingfisher&type=statuses&max_id=${posts[1]}`);
  assert.equal(
    older.body.statuses.map((s: any) => s.id),
    [posts[0]],
  );
  const newer = await search(bob.token, `q=kingfisher&type=statuses&min_id=${posts[1]}`);
  assert.equal(
    newer.body.statuses.map((s: any) => s.id),
    [posts[3]],
  );
  const ignored = await search(bob.token, 'q=kingfisher&limit=1&offset=1');
  assert.equal(
    ignored.body.statuses.map((s: any) => s.id),
    [posts[3]],
  );
});

test('without a token: allowed; exact matches only under 5 characters; no offset; resolve is 401', async () => {
  const short = await search(null, 'q=bob');
  assert.is(short.status, 200);
  assert.equal(short.body.accounts, [], 'bob is no exact username');
  const exact = await search(null, 'q=bobby');
  assert.equal(
    exact.body.accounts.map((a: any) => a.username),
    ['bobby'],
  );
  const shortExact = await search(null, 'q=bobc');
  assert.equal(shortExact.body.accounts, []);
  const longer = await search(null, 'q=bobca');
  assert.equal(
    longer.body.accounts.map((a: any) => a.username),
    ['bobcat'],
    'prefix match from 5 characters',
  );
  assert.equal(short.body.statuses, []);
  assert.is((await search(null, 'q=bobby&offset=1&type=accounts')).status, 401);
  const resolve = await search(null, 'q=bobby&resolve=true');
  assert.is(resolve.status, 401);
  assert.is((await search(alice.token, 'q=bobby&resolve=true')).status, 200);
});

test('from: limits statuses to an account; unsupported value 422; unknown account 404', async () => {
  const from = await search(alice.token, 'q=kingfisher%20from:bobby&type=statuses');
  assert.is(from.body.statuses.length, 3);
  const me = await search(alice.token, 'q=kingfisher%20from:me');
  assert.is(me.body.statuses.length, 1);
  assert.is((await search(alice.token, 'q=kingfisher%20from:%25%25bad')).status, 422);
  const unknown = await search(alice.token, 'q=kingfisher%20from:nobody');
  assert.is(unknown.status, 404);
});

test('exclude_unreviewed drops unreviewed hashtags but keeps an exact match', async () => {
  const all = await search(alice.token, 'q=kingf&type=hashtags');
  assert.is(all.body.hashtags.length, 1);
  const name = all.body.hashtags[0].name as string;
  const reviewed = await search(alice.token, 'q=kingf&type=hashtags&exclude_unreviewed=true');
  assert.equal(reviewed.body.hashtags, []);
  const exact = await search(alice.token, `q=%23${name}&type=hashtags&exclude_unreviewed=true`);
  assert.equal(
    exact.body.hashtags.map((t: { name: string }) => t.name),
    [name],
  );
});

test('a missing q is 400, an unknown type 400, the removed v1 search 404; a token without read:search is 403', async () => {
  assert.is((await search(alice.token, '')).status, 400);
  assert.is((await search(alice.token, 'q=x&type=nope')).status, 400);
  assert.is((await h.api(alice.token, 'GET', '/api/v1/search?q=kingfisher')).status, 404);
  assert.is((await search(await h.token('alice', 'write'), 'q=kingfisher')).status, 403);
});

test.run();
