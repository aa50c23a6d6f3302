/** Polls: posting one (both parameter forms), Mastodon's limits, voting, hidden totals, the end and its notifications, editing, scheduling. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { uploadPng } from '../helpers/media-files.js';

let h: SocialHarness;
let ann: TestAccount, bob: TestAccount, cy: TestAccount, dee: TestAccount;

async function ok(who: TestAccount | null, method: string, path: string, body?: unknown) {
  const res = await h.api(who?.token ?? null, method, path, body);
  assert.is(res.status, 200, `${method} ${path}: ${JSON.stringify(res.body)}`);
  return res.body;
}

const post = (who: TestAccount, body: Record<string, unknown>) => h.api(who.token, 'POST', '/api/v1/statuses', body);
const poll = (options: string[], extra: Record<string, unknown> = {}) => ({ options, expires_in: 3600, ...extra });
const tallies = (json: { options: Array<{ votes_count: number | null }> }) =>
  json.options.map((option) => option.votes_count);

/** Moves a poll's end into the past, as time passing would. */
async function end(pollId: string) {
  await h.admin.social.ctx
    .db('polls')
    .where({ id: pollId })
    .update({ expires_at: new Date(Date.now() - 1000).toISOString() });
}

test.before(async () => {
  h = await startSocialDaemon();
  [ann, bob, cy, dee] = await Promise.all(['ann', 'bob', 'cy', 'dee'].map((name) => h.account(name)));
  await ok(bob, 'POST', `/api/v1/accounts/${ann.id}/follow`);
});
test.after(async () => {
  await h?.stop();
});

test('a status with a poll (JSON form): the Poll entity on the status and at /api/v1/polls/:id', async () => {
  const before = Date.now();
  const res = await post(ann, { status: 'Tea or coffee?', poll: poll(['  Tea ', 'Coffee', ''], { expires_in: 600 }) });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const json = res.body.poll;
  assert.type(json.id, 'string');
  assert.equal(
    json.options,
    [
      { title: 'Tea', votes_count: 0 },
      { title: 'Coffee', votes_count: 0 },
    ],
    'trimmed, blank options dropped',
  );
  assert.is(json.multiple, false);
  assert.is(json.expired, false);
  assert.is(json.votes_count, 0);
  assert.is(json.voters_count, 0);
  assert.equal(json.emojis, []);
  assert.is(json.voted, true, 'its author counts as having voted');
  assert.equal(json.own_votes, []);
  const ends = Date.parse(json.expires_at) - before;
  assert.ok(ends >= 600_000 && ends < 620_000, `ends in ten minutes (${ends} ms)`);

  const seen = await ok(bob, 'GET', `/api/v1/polls/${json.id}`);
  assert.is(seen.voted, false);
  assert.equal(seen.own_votes, []);
  const anonymous = await ok(null, 'GET', `/api/v1/polls/${json.id}`);
  assert.not.ok('voted' in anonymous, 'no viewer: no voted');
  assert.not.ok('own_votes' in anonymous);
  assert.is((await h.api(null, 'GET', '/api/v1/polls/999999')).status, 404);
});

test('the bracket form of form-encoded posting', async () => {
  const form = new URLSearchParams([
    ['status', 'Which day?'],
    ['poll[options][]', 'Saturday'],
    ['poll[options][]', 'Sunday'],
    ['poll[expires_in]', '86400'],
    ['poll[multiple]', 'true'],
    ['poll[hide_totals]', '1'],
  ]);
  const response = await fetch(`${h.url}/api/v1/statuses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ann.token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const body = (await response.json()) as Record<string, any>;
  assert.is(response.status, 200, JSON.stringify(body));
  assert.equal(
    body.poll.options.map((o: { title: string }) => o.title),
    ['Saturday', 'Sunday'],
  );
  assert.is(body.poll.multiple, true);
  assert.equal(tallies(body.poll), [null, null], 'hidden totals, to the author too');
});

test("Mastodon's limits: options, their length, duplicates, the end, media; nothing is posted", async () => {
  const statusesBefore = (await ok(cy, 'GET', `/api/v1/accounts/${cy.id}/statuses`)).length;
  const refused = async (body: Record<string, unknown>, error: string) => {
    const res = await post(cy, { status: 'poll', ...body });
    assert.is(res.status, 422, JSON.stringify(body));
    assert.is(res.body.error, error);
  };
  await refused({ poll: poll(['only one']) }, 'Validation failed: Poll options must have more than one item');
  await refused(
    { poll: poll(['a', 'b', 'c', 'd', 'e']) },
    "Validation failed: Poll options can't contain more than 4 items",
  );
  await refused(
    { poll: poll(['a', 'x'.repeat(51)]) },
    'Validation failed: Poll options cannot be longer than 50 characters each',
  );
  await refused({ poll: poll(['same', 'same']) }, 'Validation failed: Poll options contain duplicate items');
  await refused({ poll: poll(['a', 'b'], { expires_in: 299 }) }, 'Validation failed: Poll expires at is too soon');
  await refused(
    { poll: poll(['a', 'b'], { expires_in: 2_629_747 }) },
    'Validation failed: Poll expires at is too far into the future',
  );
  await refused({ poll: { options: ['a', 'b'] } }, "Validation failed: Poll expires at can't be blank");
  const media = await uploadPng(h.url, cy.token);
  await refused({ poll: poll(['a', 'b']), media_ids: [media] }, 'Cannot attach more than 4 files');
  // Fifty characters as people count them: an emoji with a skin tone is one.
  assert.is((await post(cy, { status: 'wide', poll: poll(['👍🏽'.repeat(50), 'no']) })).status, 200);
  assert.is((await ok(cy, 'GET', `/api/v1/accounts/${cy.id}/statuses`)).length, statusesBefore + 1);
});

test('voting in a single-choice poll: counts, own votes, and every refusal', async () => {
  const status = (await post(ann, { status: 'Best season?', poll: poll(['Spring', 'Summer', 'Autumn']) })).body;
  const id = status.poll.id;
  const vote = (who: TestAccount, choices: unknown) =>
    h.api(who.token, 'POST', `/api/v1/polls/${id}/votes`, { choices });

  const voted = await vote(bob, [2]);
  assert.is(voted.status, 200, JSON.stringify(voted.body));
  assert.equal(tallies(voted.body), [0, 0, 1]);
  assert.is(voted.body.votes_count, 1);
  assert.is(voted.body.voters_count, 1);
  assert.is(voted.body.voted, true);
  assert.equal(voted.body.own_votes, [2]);

  const again = await vote(bob, ['0']);
  assert.is(again.status, 422);
  assert.is(again.body.error, 'Validation failed: You have already voted on this poll');
  assert.is((await vote(ann, [0])).body.error, 'Validation failed: You cannot vote in your own polls');
  assert.is((await vote(cy, [3])).body.error, 'Validation failed: The chosen vote option does not exist');
  assert.is((await vote(cy, ['x'])).status, 422);
  assert.is(
    (await vote(cy, [0, 1])).body.error,
    'Validation failed: You have already voted on this poll',
    'one choice only',
  );
  assert.is((await vote(cy, [])).status, 400);
  assert.is((await h.api(cy.token, 'POST', `/api/v1/polls/${id}/votes`, {})).status, 400);

  // Each viewer's rendering is their own, though the status is the same.
  assert.is((await vote(cy, [0])).status, 200);
  const forBob = await ok(bob, 'GET', `/api/v1/statuses/${status.id}`);
  const forCy = await ok(cy, 'GET', `/api/v1/statuses/${status.id}`);
  const forDee = await ok(dee, 'GET', `/api/v1/statuses/${status.id}`);
  assert.equal(forBob.poll.own_votes, [2]);
  assert.equal(forCy.poll.own_votes, [0]);
  assert.equal(forDee.poll.own_votes, []);
  assert.is(forDee.poll.voted, false);
  assert.equal(tallies(forDee.poll), [1, 0, 1]);
  assert.is(forDee.poll.voters_count, 2);
});

test('a multiple-choice poll takes several options, and more later, each once', async () => {
  const id = (await post(ann, { status: 'Which fruit?', poll: poll(['apple', 'pear', 'plum'], { multiple: true }) }))
    .body.poll.id;
  const vote = (choices: number[]) => h.api(bob.token, 'POST', `/api/v1/polls/${id}/votes`, { choices });
  const first = await vote([0, 2]);
  assert.equal(first.body.own_votes, [0, 2]);
  assert.equal(tallies(first.body), [1, 0, 1]);
  const more = await vote([1]);
  assert.is(more.status, 200);
  assert.equal(more.body.own_votes, [0, 1, 2]);
  assert.is(more.body.votes_count, 3);
  assert.is(more.body.voters_count, 1, 'one voter, however many choices');
  assert.is((await vote([2])).body.error, 'Validation failed: You have already voted on this poll');
});

test("a follower-only poll is not found by others; a blocked author's poll cannot be voted in", async () => {
  const privatePoll = (await post(ann, { status: 'friends only', visibility: 'private', poll: poll(['y', 'n']) })).body
    .poll.id;
  assert.is((await h.api(cy.token, 'GET', `/api/v1/polls/${privatePoll}`)).status, 404);
  assert.is((await h.api(cy.token, 'POST', `/api/v1/polls/${privatePoll}/votes`, { choices: [0] })).status, 404);
  assert.is((await h.api(bob.token, 'GET', `/api/v1/polls/${privatePoll}`)).status, 200, 'a follower sees it');

  const open = (await post(ann, { status: 'open', poll: poll(['y', 'n']) })).body.poll.id;
  await ok(dee, 'POST', `/api/v1/accounts/${ann.id}/block`);
  const res = await h.api(dee.token, 'POST', `/api/v1/polls/${open}/votes`, { choices: [0] });
  assert.is(res.status, 403);
  assert.is(res.body.error, 'This action is not allowed');
  await ok(dee, 'POST', `/api/v1/accounts/${ann.id}/unblock`);
});

test('hidden totals show once the poll has ended; an ended poll takes no vote; its author and voters are told', async () => {
  const status = (await post(ann, { status: 'Hidden count', poll: poll(['left', 'right'], { hide_totals: true }) }))
    .body;
  const id = status.poll.id;
  const voted = await ok(bob, 'POST', `/api/v1/polls/${id}/votes`, { choices: [1] });
  assert.equal(tallies(voted), [null, null]);
  assert.is(voted.votes_count, 1, 'the total shows');
  assert.equal(tallies(await ok(ann, 'GET', `/api/v1/polls/${id}`)), [null, null]);

  await end(id);
  const after = await ok(dee, 'GET', `/api/v1/statuses/${status.id}`);
  assert.is(after.poll.expired, true);
  assert.equal(tallies(after.poll), [0, 1]);
  assert.is(
    (await h.api(cy.token, 'POST', `/api/v1/polls/${id}/votes`, { choices: [0] })).body.error,
    'Validation failed: The poll has already ended',
  );

  await h.admin.social.services.polls.notifyEnded();
  const pollNotifications = async (who: TestAccount) =>
    ((await ok(who, 'GET', '/api/v1/notifications?types[]=poll')) as Array<Record<string, any>>).filter(
      (n) => n.status.id === status.id,
    );
  // The daemon's own minute job may have told them a moment earlier.
  const [forAnn] = await h.heard(
    () => pollNotifications(ann),
    (shown) => shown.length > 0,
  );
  const [forBob] = await pollNotifications(bob);
  assert.is(forAnn?.type, 'poll');
  assert.is(forAnn?.account.id, ann.id, 'from the author, to the author');
  assert.is(forBob?.account.id, ann.id);
  assert.equal(tallies(forBob.status.poll), [0, 1]);
  assert.equal(await pollNotifications(cy), [], 'not to who did not vote');
  assert.is(await h.admin.social.services.polls.notifyEnded(), 0, 'told once');
  assert.is((await pollNotifications(bob)).length, 1);
});

test('editing: new options start the count again; the same options keep the votes', async () => {
  const status = (await post(ann, { status: 'Edit me', poll: poll(['one', 'two']) })).body;
  await ok(bob, 'POST', `/api/v1/polls/${status.poll.id}/votes`, { choices: [0] });

  const kept = await ok(ann, 'PUT', `/api/v1/statuses/${status.id}`, {
    status: 'Edit me (typo fixed)',
    poll: poll(['one', 'two'], { expires_in: 7200 }),
  });
  assert.equal(tallies(kept.poll), [1, 0]);
  assert.is(kept.content, '<p>Edit me (typo fixed)</p>');
  const untouched = await ok(ann, 'PUT', `/api/v1/statuses/${status.id}`, {
    status: 'No poll parameter keeps the poll',
  });
  assert.equal(
    untouched.poll.options.map((o: { title: string }) => o.title),
    ['one', 'two'],
  );

  const changed = await ok(ann, 'PUT', `/api/v1/statuses/${status.id}`, {
    status: 'Edit me',
    poll: poll(['one', 'two', 'three']),
  });
  assert.equal(tallies(changed.poll), [0, 0, 0]);
  assert.is(changed.poll.voters_count, 0);
  const forBob = await ok(bob, 'GET', `/api/v1/polls/${status.poll.id}`);
  assert.is(forBob.voted, false, 'may vote again');
  assert.is(
    (await h.api(ann.token, 'PUT', `/api/v1/statuses/${status.id}`, { status: 'x', poll: poll(['solo']) })).status,
    422,
  );
  const history = await ok(bob, 'GET', `/api/v1/statuses/${status.id}/history`);
  assert.equal(
    history.map((v: any) => v.poll?.options.map((o: { title: string }) => o.title)),
    [
      ['one', 'two'],
      ['one', 'two'],
      ['one', 'two'],
      ['one', 'two', 'three'],
    ],
    'each version with its options',
  );

  const plain = (await post(ann, { status: 'no poll yet' })).body;
  assert.is(plain.poll, null);
  const added = await ok(ann, 'PUT', `/api/v1/statuses/${plain.id}`, { status: 'now a poll', poll: poll(['x', 'y']) });
  assert.equal(
    added.poll.options.map((o: { title: string }) => o.title),
    ['x', 'y'],
  );
  const [before, after] = await ok(bob, 'GET', `/api/v1/statuses/${plain.id}/history`);
  assert.not.ok('poll' in before, 'no poll then');
  assert.equal(after.poll, { options: [{ title: 'x' }, { title: 'y' }] });
});

test('hostile poll and vote parameters get a 4xx and an error, never a 5xx, and store nothing', async () => {
  const id = (await post(ann, { status: 'target', poll: poll(['a', 'b']) })).body.poll.id;
  const before = (await ok(cy, 'GET', `/api/v1/accounts/${cy.id}/statuses`)).length;
  const bodies: unknown[] = [
    { status: 'x', poll: 'yes' },
    { status: 'x', poll: { options: 'a' } },
    { status: 'x', poll: { options: [1, {}, null], expires_in: 600 } },
    { status: 'x', poll: { options: ['a', 'b'], expires_in: 'soon' } },
    { status: 'x', poll: { options: ['a', 'b'], expires_in: 1e300 } },
    { status: 'x', poll: { options: ['a', 'b'], expires_in: -5 } },
    { status: 'x', poll: { options: ['a', 'b'], expires_in: 600, multiple: { x: 1 } } },
    { status: 'x', poll: [] },
    { status: 'x', 'poll[options][]': ['a'], 'poll[expires_in]': '600' },
  ];
  for (const body of bodies) {
    const res = await post(cy, body as Record<string, unknown>);
    assert.ok(
      res.status >= 400 && res.status < 500,
      `${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.body)}`,
    );
    assert.type(res.body.error, 'string');
  }
  assert.is((await ok(cy, 'GET', `/api/v1/accounts/${cy.id}/statuses`)).length, before);
  for (const choices of [{ a: 1 }, [null], ['1e3'], [-1], [1.5], 'zero', [99999999999]]) {
    const res = await h.api(cy.token, 'POST', `/api/v1/polls/${id}/votes`, { choices });
    assert.ok(
      res.status >= 400 && res.status < 500,
      `${JSON.stringify(choices)}: ${res.status} ${JSON.stringify(res.body)}`,
    );
    assert.type(res.body.error, 'string');
  }
  assert.is((await ok(cy, 'GET', `/api/v1/polls/${id}`)).votes_count, 0);
});

test('a scheduled status keeps its poll and posts with it', async () => {
  const at = new Date(Date.now() + 30 * 60_000).toISOString();
  const scheduled = await ok(dee, 'POST', '/api/v1/statuses', {
    status: 'later poll',
    scheduled_at: at,
    poll: poll(['a', 'b'], { multiple: true }),
  });
  assert.equal(scheduled.params.poll, { options: ['a', 'b'], expires_in: 3600, multiple: true, hide_totals: false });
  await h.admin.social.ctx
    .db('scheduled_statuses')
    .where({ id: scheduled.id })
    .update({ scheduled_at: new Date(Date.now() - 1000).toISOString() });
  await h.admin.social.services.scheduled.publishDue();
  let posted: Array<Record<string, any>> = [];
  for (let i = 0; i < 40 && posted.length === 0; i++) {
    posted = (await ok(dee, 'GET', `/api/v1/accounts/${dee.id}/statuses`)).filter(
      (s: { content: string }) => s.content === '<p>later poll</p>',
    );
    if (posted.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  assert.is(posted[0]?.poll.multiple, true);
  assert.equal(
    posted[0]?.poll.options.map((o: { title: string }) => o.title),
    ['a', 'b'],
  );
});

test.run();
