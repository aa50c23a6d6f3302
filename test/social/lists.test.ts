/**
 * The timelines a user keeps beside home. Lists: the list resource, its members (followed or
 * requested accounts only), and the list timeline. Conversations: direct statuses and the
 * conversation list: who sees them, unread, read, taking one off, deletion.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let owner: TestAccount, fay: TestAccount, gus: TestAccount, hal: TestAccount, ivy: TestAccount;
let ann: TestAccount, ben: TestAccount, cat: TestAccount;

async function ok(token: string, method: string, path: string, body?: unknown) {
  const res = await h.api(token, method, path, body);
  assert.is(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
  return res.body;
}

const follow = (who: TestAccount, target: TestAccount) => ok(who.token, 'POST', `/api/v1/accounts/${target.id}/follow`);
const memberIds = async (listId: string) =>
  (await ok(owner.token, 'GET', `/api/v1/lists/${listId}/accounts?limit=0`)).map((a: { id: string }) => a.id).sort();
const post = async (who: TestAccount, status: string, inReplyTo?: string) =>
  (await ok(who.token, 'POST', '/api/v1/statuses', { status, in_reply_to_id: inReplyTo })).id as string;
const timeline = async (path: string) => (await ok(owner.token, 'GET', path)).map((s: { id: string }) => s.id);
const conversations = (who: TestAccount) =>
  ok(who.token, 'GET', '/api/v1/conversations') as Promise<Array<Record<string, any>>>;

test.before(async () => {
  h = await startSocialDaemon();
  owner = await h.account('owner');
  [fay, gus, hal] = await Promise.all(['fay', 'gus', 'hal'].map((name) => h.account(name)));
  ivy = await h.account('ivy', { locked: true });
  [ann, ben, cat] = await Promise.all(['ann', 'ben', 'cat'].map((name) => h.account(name)));
  await ok(cat.token, 'POST', `/api/v1/accounts/${ann.id}/follow`);
  await ok(ben.token, 'POST', `/api/v1/accounts/${ann.id}/follow`);
});
test.after(async () => {
  await h?.stop();
});

test("lists: create with defaults, read, rename, 422 on bad input, another account's list is 404", async () => {
  const created = await ok(owner.token, 'POST', '/api/v1/lists', { title: '  Friends ' });
  assert.equal(created, { id: created.id, title: 'Friends', replies_policy: 'list', exclusive: false });
  assert.equal(await ok(owner.token, 'GET', `/api/v1/lists/${created.id}`), created);
  const updated = await ok(owner.token, 'PUT', `/api/v1/lists/${created.id}`, {
    title: 'Close friends',
    replies_policy: 'followed',
    exclusive: true,
  });
  assert.equal(updated, { id: created.id, title: 'Close friends', replies_policy: 'followed', exclusive: true });
  assert.ok((await ok(owner.token, 'GET', '/api/v1/lists')).some((l: { id: string }) => l.id === created.id));

  const blank = await h.api(owner.token, 'POST', '/api/v1/lists', { title: ' ' });
  assert.is(blank.status, 422);
  assert.is(blank.body.error, "Validation failed: Title can't be blank");
  assert.is(
    (await h.api(owner.token, 'POST', '/api/v1/lists', { title: 'x', replies_policy: 'everyone' })).status,
    422,
  );
  assert.is((await h.api(owner.token, 'PUT', `/api/v1/lists/${created.id}`, { replies_policy: 'all' })).status, 422);
  assert.is(
    (await ok(owner.token, 'GET', `/api/v1/lists/${created.id}`)).replies_policy,
    'followed',
    'a refused update changes nothing',
  );

  for (const [method, path] of [
    ['GET', ''],
    ['PUT', ''],
    ['DELETE', ''],
    ['GET', '/accounts'],
  ]) {
    assert.is(
      (
        await h.api(
          fay.token,
          method,
          `/api/v1/lists/${created.id}${path}`,
          method === 'PUT' ? { title: 'mine' } : undefined,
        )
      ).status,
      404,
      `${method} ${path}`,
    );
  }
  assert.equal(await ok(owner.token, 'DELETE', `/api/v1/lists/${created.id}`), {});
  assert.is((await h.api(owner.token, 'GET', `/api/v1/lists/${created.id}`)).status, 404);
});

test('members: only followed or requested accounts, all or none, gone when the follow ends', async () => {
  const list = await ok(owner.token, 'POST', '/api/v1/lists', { title: 'People' });
  const add = (...who: TestAccount[]) =>
    h.api(owner.token, 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: who.map((a) => a.id) });

  const notFollowed = await add(fay);
  assert.is(notFollowed.status, 422);
  assert.match(notFollowed.body.error, /followed/);
  await follow(owner, fay);
  await follow(owner, gus);
  const mixed = await add(gus, hal);
  assert.is(mixed.status, 422, 'hal is not followed');
  assert.equal(await memberIds(list.id), [], 'nothing was added');
  assert.is((await add(fay, gus)).status, 200);
  assert.equal(await memberIds(list.id), [fay.id, gus.id].sort());
  assert.is((await add(fay)).status, 422, 'already on the list');
  assert.is(
    (await h.api(owner.token, 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: ['999999999999'] })).status,
    404,
  );
  assert.equal(
    (await ok(owner.token, 'GET', `/api/v1/accounts/${fay.id}/lists`)).map((l: { id: string }) => l.id),
    [list.id],
  );

  const page = await h.api(owner.token, 'GET', `/api/v1/lists/${list.id}/accounts?limit=1`);
  assert.is(page.body.length, 1);
  assert.match(page.headers.get('link') ?? '', /rel="next"/);

  // A locked account asked to follow: it may join the list, and stays once the request is accepted.
  await follow(owner, ivy);
  assert.is((await add(ivy)).status, 200);
  await ok(ivy.token, 'POST', `/api/v1/follow_requests/${owner.id}/authorize`);
  assert.ok((await memberIds(list.id)).includes(ivy.id));

  await ok(owner.token, 'POST', `/api/v1/accounts/${gus.id}/unfollow`);
  assert.equal(await memberIds(list.id), [fay.id, ivy.id].sort(), 'unfollowing takes gus off');
  await ok(owner.token, 'DELETE', `/api/v1/lists/${list.id}/accounts`, { account_ids: [fay.id] });
  assert.equal(await memberIds(list.id), [ivy.id]);
});

test('members leave with the last follow or request, however it ends: rejected, removed as a follower, blocked', async () => {
  const jon = await h.account('jon', { locked: true });
  const [kim, lea] = await Promise.all(['kim', 'lea'].map((name) => h.account(name)));
  const list = await ok(owner.token, 'POST', '/api/v1/lists', { title: 'Endings' });
  await follow(owner, jon);
  await follow(owner, kim);
  await follow(owner, lea);
  await ok(owner.token, 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [jon.id, kim.id, lea.id] });
  assert.equal(await memberIds(list.id), [jon.id, kim.id, lea.id].sort());

  await ok(jon.token, 'POST', `/api/v1/follow_requests/${owner.id}/reject`);
  assert.equal(await memberIds(list.id), [kim.id, lea.id].sort(), 'jon rejected the request');
  await ok(kim.token, 'POST', `/api/v1/accounts/${owner.id}/remove_from_followers`);
  assert.equal(await memberIds(list.id), [lea.id], 'kim removed the owner from its followers');
  await ok(lea.token, 'POST', `/api/v1/accounts/${owner.id}/block`);
  assert.equal(await memberIds(list.id), [], 'lea blocked the owner');
});

test("the list timeline: members' posts, replies as the policy says; an exclusive list leaves home", async () => {
  await follow(owner, fay);
  await follow(owner, gus);
  await follow(owner, hal);
  const list = await ok(owner.token, 'POST', '/api/v1/lists', { title: 'Feed', replies_policy: 'list' });
  await ok(owner.token, 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [fay.id, gus.id] });
  const path = `/api/v1/timelines/list/${list.id}`;

  const fromHal = await post(hal, 'hal is not on the list');
  const fromFay = await post(fay, 'fay posts');
  const toMember = await post(gus, 'gus answers fay', fromFay);
  const toHal = await post(fay, 'fay answers hal', fromHal);
  const ownPost = await post(owner, 'the owner posts');
  const toOwner = await post(gus, 'gus answers the owner', ownPost);
  assert.equal(await timeline(path), [toOwner, toMember, fromFay], 'not the reply to hal, who is not on the list');

  await ok(owner.token, 'PUT', `/api/v1/lists/${list.id}`, { replies_policy: 'followed' });
  assert.equal(await timeline(path), [toOwner, toHal, toMember, fromFay], 'hal is followed');
  await ok(owner.token, 'PUT', `/api/v1/lists/${list.id}`, { replies_policy: 'none' });
  assert.equal(await timeline(path), [toOwner, fromFay]);

  const home = async () => timeline('/api/v1/timelines/home?limit=40');
  assert.ok((await home()).includes(fromFay));
  await ok(owner.token, 'PUT', `/api/v1/lists/${list.id}`, { exclusive: true });
  const exclusiveHome = await home();
  assert.not.ok(exclusiveHome.includes(fromFay) || exclusiveHome.includes(toMember), 'members leave home');
  assert.ok(exclusiveHome.includes(fromHal) && exclusiveHome.includes(ownPost));
  assert.is((await h.api(fay.token, 'GET', path)).status, 404, 'only its owner reads a list');
});

test('at most 50 lists an account', async () => {
  const { body: existing } = await h.api(hal.token, 'GET', '/api/v1/lists');
  for (let i = existing.length; i < 50; i++) await ok(hal.token, 'POST', '/api/v1/lists', { title: `list ${i}` });
  const refused = await h.api(hal.token, 'POST', '/api/v1/lists', { title: 'one too many' });
  assert.is(refused.status, 422);
  assert.is((await ok(hal.token, 'GET', '/api/v1/lists')).length, 50);
});

test('a direct status: in the conversation lists of its author and the mentioned, nowhere else', async () => {
  const dm = await ok(ann.token, 'POST', '/api/v1/statuses', { status: '@ben just between us', visibility: 'direct' });
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
  const catHome = (await ok(cat.token, 'GET', '/api/v1/timelines/home')).map((s: { id: string }) => s.id);
  assert.not.ok(catHome.includes(dm.id));
  const benHome = (await ok(ben.token, 'GET', '/api/v1/timelines/home')).map((s: { id: string }) => s.id);
  assert.ok(benHome.includes(dm.id), 'a mentioned follower has it on home, as on Mastodon');

  assert.is((await h.api(ann.token, 'POST', `/api/v1/statuses/${dm.id}/pin`)).status, 422);
  assert.is((await h.api(ben.token, 'POST', `/api/v1/statuses/${dm.id}/reblog`)).status, 422);
  assert.is((await h.api(ann.token, 'POST', '/api/v1/statuses', { status: 'x', visibility: 'secret' })).status, 422);
});

test('a reply moves the conversation and makes it unread; read, and taking it off the list', async () => {
  const [before] = await conversations(ann);
  const reply = await ok(ben.token, 'POST', '/api/v1/statuses', {
    status: '@ann agreed',
    visibility: 'direct',
    in_reply_to_id: before.last_status.id,
  });
  const [moved] = await conversations(ann);
  assert.is(moved.id, before.id, 'the same conversation');
  assert.is(moved.last_status.id, reply.id);
  assert.is(moved.unread, true);

  const read = await ok(ann.token, 'POST', `/api/v1/conversations/${moved.id}/read`);
  assert.is(read.unread, false);
  assert.is((await conversations(ann))[0].unread, false);
  assert.is((await h.api(cat.token, 'POST', `/api/v1/conversations/${moved.id}/read`)).status, 404, "not cat's");

  await ok(
    ann.token,
    'DELETE',
    `/api/v1/statuses/${(await ok(ann.token, 'POST', '/api/v1/statuses', { status: '@ben oops', visibility: 'direct', in_reply_to_id: reply.id })).id}`,
  );
  assert.is(
    (await conversations(ben))[0].last_status.id,
    reply.id,
    'a deleted message drops out; the one before it shows',
  );

  const [benConversation] = await conversations(ben);
  assert.equal(await ok(ben.token, 'DELETE', `/api/v1/conversations/${benConversation.id}`), {});
  assert.equal(await conversations(ben), []);
  assert.is((await conversations(ann)).length, 1, "still on ann's list");
  await ok(ann.token, 'POST', '/api/v1/statuses', {
    status: '@ben one more',
    visibility: 'direct',
    in_reply_to_id: reply.id,
  });
  assert.is((await conversations(ben)).length, 1, 'a new message brings it back');
});

test('the list pages newest first by latest message, with Link', async () => {
  const dan = await h.account('dan');
  const first = await ok(dan.token, 'POST', '/api/v1/statuses', { status: '@ann first thread', visibility: 'direct' });
  const second = await ok(dan.token, 'POST', '/api/v1/statuses', {
    status: '@ben second thread',
    visibility: 'direct',
  });
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

test('an edit that mentions someone new brings the direct message to their list, unread', async () => {
  const eve = await h.account('eve');
  // eve follows ann: a stranger's private mention would be held back (notification policy).
  await follow(eve, ann);
  const dm = await ok(ann.token, 'POST', '/api/v1/statuses', { status: '@ben a draft', visibility: 'direct' });
  assert.equal(await conversations(eve), []);
  await ok(ann.token, 'PUT', `/api/v1/statuses/${dm.id}`, { status: '@ben @eve a draft for you both' });
  const [forEve] = await conversations(eve);
  assert.is(forEve?.last_status.id, dm.id);
  assert.is(forEve.unread, true);
  const forAnn = (await conversations(ann)).find((c) => c.last_status.id === dm.id);
  assert.is(forAnn?.unread, false, 'not unread for its author');
});

test.run();
