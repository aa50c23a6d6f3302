/** Direct statuses and the conversation list: who sees them, unread, read, taking one off, deletion. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let ann: TestAccount, ben: TestAccount, cat: TestAccount;

async function ok(who: TestAccount, method: string, path: string, body?: unknown) {
  const res = await h.api(who.token, method, path, body);
  assert.is(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
  return res.body;
}

const conversations = (who: TestAccount) =>
  ok(who, 'GET', '/api/v1/conversations') as Promise<Array<Record<string, any>>>;

test.before(async () => {
  h = await startSocialDaemon();
  [ann, ben, cat] = await Promise.all(['ann', 'ben', 'cat'].map((name) => h.account(name)));
  await ok(cat, 'POST', `/api/v1/accounts/${ann.id}/follow`);
  await ok(ben, 'POST', `/api/v1/accounts/${ann.id}/follow`);
});
test.after(async () => {
  await h?.stop();
});

test('a direct status: in the conversation lists of its author and the mentioned, nowhere else', async () => {
  const dm = await ok(ann, 'POST', '/api/v1/statuses', { status: '@ben just between us', visibility: 'direct' });
  assert.is(dm.visibility, 'direct');

  const [forBen] = await conversations(ben);
  assert.is(forBen.unread, true);
  assert.equal(
    forBen.accounts.map((a: { id: string }) => a.id),
    [ann.id],
  );
  assert.is(forBen.last_status.id, dm.id);
  const [forAnn] = await conversations(ann);
  assert.is(forAnn.unread, false, 'not unread for its author');
  assert.equal(
    forAnn.accounts.map((a: { id: string }) => a.id),
    [ben.id],
  );

  assert.equal(await conversations(cat), []);
  assert.is(
    (await h.api(cat.token, 'GET', `/api/v1/statuses/${dm.id}`)).status,
    404,
    'a follower not mentioned cannot open it',
  );
  const catHome = (await ok(cat, 'GET', '/api/v1/timelines/home')).map((s: { id: string }) => s.id);
  assert.not.ok(catHome.includes(dm.id));
  const benHome = (await ok(ben, 'GET', '/api/v1/timelines/home')).map((s: { id: string }) => s.id);
  assert.ok(benHome.includes(dm.id), 'a mentioned follower has it on home, as on Mastodon');

  assert.is((await h.api(ann.token, 'POST', `/api/v1/statuses/${dm.id}/pin`)).status, 422);
  assert.is((await h.api(ben.token, 'POST', `/api/v1/statuses/${dm.id}/reblog`)).status, 422);
  assert.is((await h.api(ann.token, 'POST', '/api/v1/statuses', { status: 'x', visibility: 'secret' })).status, 422);
});

test('a reply moves the conversation and makes it unread; read, and taking it off the list', async () => {
  const [before] = await conversations(ann);
  const reply = await ok(ben, 'POST', '/api/v1/statuses', {
    status: '@ann agreed',
    visibility: 'direct',
    in_reply_to_id: before.last_status.id,
  });
  const [moved] = await conversations(ann);
  assert.is(moved.id, before.id, 'the same conversation');
  assert.is(moved.last_status.id, reply.id);
  assert.is(moved.unread, true);

  const read = await ok(ann, 'POST', `/api/v1/conversations/${moved.id}/read`);
  assert.is(read.unread, false);
  assert.is((await conversations(ann))[0].unread, false);
  assert.is((await h.api(cat.token, 'POST', `/api/v1/conversations/${moved.id}/read`)).status, 404, "not cat's");

  await ok(
    ann,
    'DELETE',
    `/api/v1/statuses/${(await ok(ann, 'POST', '/api/v1/statuses', { status: '@ben oops', visibility: 'direct', in_reply_to_id: reply.id })).id}`,
  );
  assert.is(
    (await conversations(ben))[0].last_status.id,
    reply.id,
    'a deleted message drops out; the one before it shows',
  );

  const [benConversation] = await conversations(ben);
  assert.equal(await ok(ben, 'DELETE', `/api/v1/conversations/${benConversation.id}`), {});
  assert.equal(await conversations(ben), []);
  assert.is((await conversations(ann)).length, 1, "still on ann's list");
  await ok(ann, 'POST', '/api/v1/statuses', {
    status: '@ben one more',
    visibility: 'direct',
    in_reply_to_id: reply.id,
  });
  assert.is((await conversations(ben)).length, 1, 'a new message brings it back');
});

test('the list pages newest first by latest message, with Link', async () => {
  const dan = await h.account('dan');
  const first = await ok(dan, 'POST', '/api/v1/statuses', { status: '@ann first thread', visibility: 'direct' });
  const second = await ok(dan, 'POST', '/api/v1/statuses', { status: '@ben second thread', visibility: 'direct' });
  const page = await h.api(dan.token, 'GET', '/api/v1/conversations?limit=1');
  assert.equal(
    page.body.map((c: { last_status: { id: string } }) => c.last_status.id),
    [second.id],
  );
  const next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
  assert.ok(next, page.headers.get('link') ?? 'no Link');
  const older = await h.api(dan.token, 'GET', new URL(next).pathname + new URL(next).search);
  assert.equal(
    older.body.map((c: { last_status: { id: string } }) => c.last_status.id),
    [first.id],
  );
});

test.run();
