/**
 * Statuses: posting, visibility, deletion, favourites, reblogs, bookmarks, pins, conversation mutes,
 * lists. Scheduled statuses: posting with scheduled_at, the list, moving and cancelling, media held,
 * posting when due.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { uploadPng } from '../helpers/media-files.js';
import { rawRows } from '../../daemon/store/dialect.js';

let h: SocialHarness;
let amy: TestAccount, bo: TestAccount, cy: TestAccount, di: TestAccount;
let kim: TestAccount, lou: TestAccount;

const post = async (who: TestAccount, body: object) => {
  const res = await h.api(who.token, 'POST', '/api/v1/statuses', body);
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body;
};

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

async function schedule(who: TestAccount, body: Record<string, unknown>) {
  return h.api(who.token, 'POST', '/api/v1/statuses', body);
}

const ownStatuses = async (who: TestAccount) =>
  (await h.api(who.token, 'GET', `/api/v1/accounts/${who.id}/statuses`)).body as Array<Record<string, any>>;

test.before(async () => {
  h = await startSocialDaemon();
  [amy, bo, cy, di] = await Promise.all(['amy', 'bo', 'cy', 'di'].map((name) => h.account(name)));
  kim = await h.account('kim');
  lou = await h.account('lou');
});
test.after(async () => {
  await h?.stop();
});

test('create: visibility, spoiler_text, sensitive, language, mentions and application; rate-limit headers', async () => {
  const res = await h.api(amy.token, 'POST', '/api/v1/statuses', {
    status: 'Hi @bo and @nobody, see https://example.test/x',
    spoiler_text: 'cw',
    visibility: 'unlisted',
    language: 'en',
  });
  assert.is(res.status, 200);
  const s = res.body;
  assert.is(s.visibility, 'unlisted');
  assert.is(s.spoiler_text, 'cw');
  assert.is(s.sensitive, true, 'a content warning makes the status sensitive');
  assert.is(s.language, 'en');
  assert.equal(
    s.mentions.map((m: any) => m.acct),
    ['bo'],
  );
  assert.match(s.content, '<a href="https://example.test/x"');
  assert.match(s.content, 'class="u-url mention"');
  assert.is(s.application.name, 'nestbox-admin');
  assert.is(s.application.website, null);
  for (const key of ['muted', 'pinned', 'filtered', 'favourited', 'reblogged', 'bookmarked']) assert.ok(key in s, key);
  assert.is(s.pinned, false);
  assert.is(s.account.id, amy.id);
  assert.is(res.headers.get('x-ratelimit-limit'), '300');
  assert.is(res.headers.get('x-ratelimit-remaining'), '299');
  assert.match(res.headers.get('x-ratelimit-reset')!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
});

test('create validates: blank text, more than 500 characters, unknown visibility, wrong types', async () => {
  assert.match((await h.api(amy.token, 'POST', '/api/v1/statuses', { status: '  ' })).body.error, /can't be blank/);
  assert.is((await h.api(amy.token, 'POST', '/api/v1/statuses', { status: 'x'.repeat(501) })).status, 422);
  assert.is((await h.api(amy.token, 'POST', '/api/v1/statuses', { status: 'x'.repeat(500) })).status, 200);
  assert.is((await h.api(amy.token, 'POST', '/api/v1/statuses', { status: 'x', visibility: 'secret' })).status, 422);
  assert.is((await h.api(amy.token, 'POST', '/api/v1/statuses', { status: { nested: 1 } })).status, 400);
  assert.is((await h.api(amy.token, 'POST', '/api/v1/statuses', '{"status":')).status, 400);
  const huge = await h.api(
    amy.token,
    'POST',
    '/api/v1/statuses',
    JSON.stringify({ status: 'x'.repeat(2 * 1024 * 1024) }),
  );
  assert.is(huge.status, 413);
  assert.is(
    (await h.api(amy.token, 'POST', '/api/v1/statuses', { status: 'reply', in_reply_to_id: '123' })).status,
    404,
  );
});

test('several statuses at once: in the order asked, what the viewer may not see left out', async () => {
  const open = await post(amy, { status: 'for all' });
  const hidden = await post(amy, { status: 'followers only', visibility: 'private' });
  const ids = (body: Array<{ id: string }>) => body.map((s) => s.id);
  const anonymous = await h.api(null, 'GET', `/api/v1/statuses?id[]=${hidden.id}&id[]=${open.id}&id[]=12345`);
  assert.is(anonymous.status, 200);
  assert.equal(ids(anonymous.body), [open.id]);
  assert.equal(ids((await h.api(amy.token, 'GET', `/api/v1/statuses?id[]=${hidden.id}&id[]=${open.id}`)).body), [
    hidden.id,
    open.id,
  ]);
});

test('a private status is 404 to a non-follower and visible to followers and the mentioned', async () => {
  const priv = await post(amy, { status: 'followers only @di', visibility: 'private' });
  assert.is((await h.api(bo.token, 'GET', `/api/v1/statuses/${priv.id}`)).status, 404);
  assert.is((await h.api(null, 'GET', `/api/v1/statuses/${priv.id}`)).status, 404);
  assert.is((await h.api(di.token, 'GET', `/api/v1/statuses/${priv.id}`)).status, 200, 'mentioned');
  await h.api(bo.token, 'POST', `/api/v1/accounts/${amy.id}/follow`);
  assert.is((await h.api(bo.token, 'GET', `/api/v1/statuses/${priv.id}`)).status, 200);
  const statuses = await h.api(cy.token, 'GET', `/api/v1/accounts/${amy.id}/statuses`);
  assert.not.ok(statuses.body.some((s: any) => s.id === priv.id));
  const asFollower = await h.api(bo.token, 'GET', `/api/v1/accounts/${amy.id}/statuses`);
  assert.ok(asFollower.body.some((s: any) => s.id === priv.id));
  assert.is((await h.api(cy.token, 'POST', `/api/v1/statuses/${priv.id}/favourite`)).status, 404);
});

test('reblog of a private status is 422; a reblog answers the wrapper; unreblog', async () => {
  const priv = await post(amy, { status: 'no reblogs', visibility: 'private' });
  assert.is((await h.api(bo.token, 'POST', `/api/v1/statuses/${priv.id}/reblog`)).status, 422);
  const pub = await post(amy, { status: 'reblog me' });
  const reblog = await h.api(cy.token, 'POST', `/api/v1/statuses/${pub.id}/reblog`);
  assert.is(reblog.status, 200);
  assert.is(reblog.body.reblog.id, pub.id);
  assert.is(reblog.body.reblog.reblogged, true);
  assert.is(reblog.body.reblog.reblogs_count, 1);
  assert.is(reblog.headers.get('x-ratelimit-limit'), '300');
  const again = await h.api(cy.token, 'POST', `/api/v1/statuses/${pub.id}/reblog`);
  assert.is(again.body.id, reblog.body.id, 'reblogging twice keeps one reblog');
  const by = await h.api(null, 'GET', `/api/v1/statuses/${pub.id}/reblogged_by`);
  assert.equal(
    by.body.map((a: any) => a.id),
    [cy.id],
  );
  const undone = await h.api(cy.token, 'POST', `/api/v1/statuses/${pub.id}/unreblog`);
  assert.is(undone.body.id, pub.id);
  assert.is(undone.body.reblogged, false);
  assert.is(undone.body.reblogs_count, 0);
});

test('delete soft-deletes at once: the response carries the source text; the status is then 404', async () => {
  const s = await post(amy, { status: 'delete me' });
  assert.is((await h.api(bo.token, 'DELETE', `/api/v1/statuses/${s.id}`)).status, 404, 'only the author');
  const deleted = await h.api(amy.token, 'DELETE', `/api/v1/statuses/${s.id}`);
  assert.is(deleted.status, 200);
  assert.is(deleted.body.text, 'delete me');
  assert.is((await h.api(amy.token, 'GET', `/api/v1/statuses/${s.id}`)).status, 404);
  const row = await rawRows<{ deleted_at: string | null }>(
    h.admin.social.ctx.db,
    'SELECT deleted_at FROM statuses WHERE id = ?',
    [s.id],
  );
  assert.ok(row[0].deleted_at, 'the row stays (reportable)');
});

test('favourite and unfavourite; favourited_by leaves out blocked, muted and blocking accounts', async () => {
  const s = await post(amy, { status: 'fav me' });
  for (const who of [bo, cy, di]) {
    const res = await h.api(who.token, 'POST', `/api/v1/statuses/${s.id}/favourite`);
    assert.is(res.body.favourited, true);
  }
  assert.is(
    (await h.api(bo.token, 'POST', `/api/v1/statuses/${s.id}/favourite`)).body.favourites_count,
    3,
    'idempotent',
  );
  await h.api(amy.token, 'POST', `/api/v1/accounts/${bo.id}/block`);
  await h.api(amy.token, 'POST', `/api/v1/accounts/${cy.id}/mute`);
  const by = await h.api(amy.token, 'GET', `/api/v1/statuses/${s.id}/favourited_by`);
  assert.equal(
    by.body.map((a: any) => a.id),
    [di.id],
  );
  const blockedBy = await h.api(di.token, 'POST', `/api/v1/accounts/${cy.id}/block`);
  assert.is(blockedBy.status, 200);
  const seenByCy = await h.api(cy.token, 'GET', `/api/v1/statuses/${s.id}/favourited_by`);
  assert.not.ok(
    seenByCy.body.some((a: any) => a.id === di.id),
    'an account that blocks the viewer is left out',
  );
  await h.api(amy.token, 'POST', `/api/v1/accounts/${bo.id}/unblock`);
  await h.api(amy.token, 'POST', `/api/v1/accounts/${cy.id}/unmute`);
  const un = await h.api(di.token, 'POST', `/api/v1/statuses/${s.id}/unfavourite`);
  assert.is(un.body.favourited, false);
});

test('favourites and bookmarks lists page with max_id and min_id', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await post(amy, { status: `list ${i}` })).id);
  for (const id of ids) {
    await h.api(di.token, 'POST', `/api/v1/statuses/${id}/favourite`);
    const b = await h.api(di.token, 'POST', `/api/v1/statuses/${id}/bookmark`);
    assert.is(b.body.bookmarked, true);
  }
  for (const path of ['/api/v1/favourites', '/api/v1/bookmarks']) {
    const page = await h.api(di.token, 'GET', `${path}?limit=2`);
    assert.equal(
      page.body.map((s: any) => s.id),
      [ids[2], ids[1]],
    );
    const link = page.headers.get('link')!;
    const prevMin = /min_id=(\d+)/.exec(link)![1];
    const nextMax = /max_id=(\d+)/.exec(link)![1];
    assert.equal(
      (await h.api(di.token, 'GET', `${path}?max_id=${nextMax}&limit=1`)).body.map((s: any) => s.id),
      [ids[0]],
    );
    const older = await h.api(di.token, 'GET', `${path}?max_id=${nextMax}&limit=5`);
    const min = /min_id=(\d+)/.exec(older.headers.get('link')!)![1];
    assert.equal(
      (await h.api(di.token, 'GET', `${path}?min_id=${min}&limit=1`)).body.map((s: any) => s.id),
      [ids[1]],
    );
    assert.ok(prevMin);
  }
  const unbookmarked = await h.api(di.token, 'POST', `/api/v1/statuses/${ids[0]}/unbookmark`);
  assert.is(unbookmarked.body.bookmarked, false);
});

test('pin and unpin own statuses; pinned=true lists them with Link headers', async () => {
  const s = await post(bo, { status: 'pin me' });
  const pinned = await h.api(bo.token, 'POST', `/api/v1/statuses/${s.id}/pin`);
  assert.is(pinned.body.pinned, true);
  assert.is((await h.api(amy.token, 'POST', `/api/v1/statuses/${s.id}/pin`)).status, 422, "not someone else's");
  const list = await h.api(null, 'GET', `/api/v1/accounts/${bo.id}/statuses?pinned=true`);
  assert.equal(
    list.body.map((x: any) => x.id),
    [s.id],
  );
  assert.ok(list.headers.get('link'));
  assert.is((await h.api(bo.token, 'POST', `/api/v1/statuses/${s.id}/unpin`)).body.pinned, false);
  assert.equal((await h.api(null, 'GET', `/api/v1/accounts/${bo.id}/statuses?pinned=true`)).body, []);
});

test('mute and unmute a conversation; 422 through a reblog (no conversation of its own)', async () => {
  const s = await post(amy, { status: 'thread' });
  const muted = await h.api(bo.token, 'POST', `/api/v1/statuses/${s.id}/mute`);
  assert.is(muted.body.muted, true);
  assert.is((await h.api(bo.token, 'POST', `/api/v1/statuses/${s.id}/unmute`)).body.muted, false);
  const reblog = await h.api(cy.token, 'POST', `/api/v1/statuses/${s.id}/reblog`);
  const res = await h.api(bo.token, 'POST', `/api/v1/statuses/${reblog.body.id}/mute`);
  assert.is(res.status, 422);
});

test('Idempotency-Key: a retried post answers the status already made', async () => {
  const send = (who: TestAccount) =>
    fetch(`${h.url}/api/v1/statuses`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${who.token}`,
        'content-type': 'application/json',
        'idempotency-key': 'retry-1',
      },
      body: JSON.stringify({ status: 'once' }),
    }).then((r) => r.json() as Promise<any>);
  const first = await send(cy);
  const second = await send(cy);
  assert.is(second.id, first.id);
  const other = await send(di);
  assert.is.not(other.id, first.id, 'keys are per account');
});

test('replies count and keep the conversation', async () => {
  const root = await post(amy, { status: 'root' });
  const reply = await post(bo, { status: '@amy reply', in_reply_to_id: root.id });
  assert.is(reply.in_reply_to_id, root.id);
  assert.is(reply.in_reply_to_account_id, amy.id);
  assert.is((await h.api(amy.token, 'GET', `/api/v1/statuses/${root.id}`)).body.replies_count, 1);
  const replies = await h.api(null, 'GET', `/api/v1/accounts/${bo.id}/statuses?exclude_replies=true`);
  assert.not.ok(replies.body.some((x: any) => x.id === reply.id));
});

test("custom emoji: a status lists the box's emoji its text uses; an edit updates them", async () => {
  await h.admin.social.ctx.db.raw(
    `INSERT INTO custom_emojis (shortcode, image_url, static_url, created_at) VALUES ('nestbird', 'http://127.0.0.1/e/nestbird.png', 'http://127.0.0.1/e/nestbird-static.png', ?)`,
    [new Date().toISOString()],
  );
  const status = await post(amy, { status: 'good morning :nestbird: :nosuchemoji:', spoiler_text: 'birds' });
  assert.equal(status.emojis, [
    {
      shortcode: 'nestbird',
      url: 'http://127.0.0.1/e/nestbird.png',
      static_url: 'http://127.0.0.1/e/nestbird-static.png',
      visible_in_picker: false,
    },
  ]);
  const edited = await h.api(amy.token, 'PUT', `/api/v1/statuses/${status.id}`, { status: 'no birds now' });
  assert.equal(edited.body.emojis, []);
});

test('scheduled_at ahead keeps the post for later and answers a ScheduledStatus; nothing is posted yet', async () => {
  const at = inMinutes(30);
  const res = await schedule(kim, {
    status: 'later, friends',
    spoiler_text: 'soon',
    visibility: 'unlisted',
    language: 'en',
    scheduled_at: at,
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.type(res.body.id, 'string');
  assert.is(res.body.scheduled_at, at);
  assert.is(res.body.params.text, 'later, friends');
  assert.is(res.body.params.spoiler_text, 'soon');
  assert.is(res.body.params.visibility, 'unlisted');
  assert.is(res.body.params.language, 'en');
  assert.is(res.body.params.poll, null);
  assert.equal(res.body.media_attachments, []);
  assert.equal(await ownStatuses(kim), []);

  assert.equal((await h.api(kim.token, 'GET', `/api/v1/scheduled_statuses/${res.body.id}`)).body, res.body);
  assert.equal(
    (await h.api(kim.token, 'GET', '/api/v1/scheduled_statuses')).body.map((s: { id: string }) => s.id),
    [res.body.id],
  );
  assert.is(
    (await h.api(lou.token, 'GET', `/api/v1/scheduled_statuses/${res.body.id}`)).status,
    404,
    "another account's is not found",
  );

  const moved = await h.api(kim.token, 'PUT', `/api/v1/scheduled_statuses/${res.body.id}`, {
    scheduled_at: inMinutes(90),
  });
  assert.is(moved.status, 200);
  assert.ok(moved.body.scheduled_at > at);
  assert.is(
    (await h.api(kim.token, 'PUT', `/api/v1/scheduled_statuses/${res.body.id}`, { scheduled_at: inMinutes(1) })).status,
    422,
  );
  assert.equal(await h.api(kim.token, 'DELETE', `/api/v1/scheduled_statuses/${res.body.id}`).then((r) => r.body), {});
  assert.is((await h.api(kim.token, 'GET', `/api/v1/scheduled_statuses/${res.body.id}`)).status, 404);
});

test('too soon or not a date is 422; a time already past posts at once; a bad post is refused when scheduled', async () => {
  const soon = await schedule(kim, { status: 'too soon', scheduled_at: inMinutes(2) });
  assert.is(soon.status, 422);
  assert.match(soon.body.error, /future/);
  assert.is((await schedule(kim, { status: 'when?', scheduled_at: 'next tuesday' })).status, 422);
  const blank = await schedule(kim, { status: ' ', scheduled_at: inMinutes(30) });
  assert.is(blank.status, 422, 'checked like a post');
  assert.is(
    (await schedule(kim, { status: 'reply', in_reply_to_id: '12345', scheduled_at: inMinutes(30) })).status,
    404,
  );

  const past = await schedule(kim, { status: 'right away', scheduled_at: inMinutes(-10) });
  assert.is(past.status, 200);
  assert.is(past.body.content, '<p>right away</p>', 'a Status, not a ScheduledStatus');
  assert.equal((await h.api(kim.token, 'GET', '/api/v1/scheduled_statuses')).body, []);
});

test('media are held for the scheduled post, then posted with it when its time comes', async () => {
  const mediaId = await uploadPng(h.url, lou.token);
  const scheduled = (
    await schedule(lou, { status: 'with a picture', media_ids: [mediaId], scheduled_at: inMinutes(10) })
  ).body;
  assert.equal(scheduled.params.media_ids, [mediaId]);
  assert.equal(
    scheduled.media_attachments.map((m: { id: string }) => m.id),
    [mediaId],
  );
  const taken = await h.api(lou.token, 'POST', '/api/v1/statuses', { status: 'steal it', media_ids: [mediaId] });
  assert.is(taken.status, 422, 'held media cannot go on another post');

  // A day passes for the upload: held media are not cleaned up as unattached.
  const db = h.admin.social.ctx.db;
  await db('media_attachments')
    .where({ id: mediaId })
    .update({ created_at: new Date(Date.now() - 3 * 86_400_000).toISOString() });
  await h.admin.social.services.media.removeStale();
  assert.ok(await db('media_attachments').where({ id: mediaId }).first());

  // Its time comes.
  await db('scheduled_statuses')
    .where({ id: scheduled.id })
    .update({ scheduled_at: new Date(Date.now() - 1000).toISOString() });
  await h.admin.social.services.scheduled.publishDue();
  // The daemon's own minute job may have taken it a moment earlier: then it appears just after.
  let posted = await ownStatuses(lou);
  for (let i = 0; i < 40 && posted.length === 0; i++)
    posted = await new Promise((r) => setTimeout(r, 50)).then(() => ownStatuses(lou));
  assert.is(posted.length, 1);
  assert.is(posted[0].content, '<p>with a picture</p>');
  assert.equal(
    posted[0].media_attachments.map((m: { id: string }) => m.id),
    [mediaId],
  );
  assert.equal((await h.api(lou.token, 'GET', '/api/v1/scheduled_statuses')).body, []);
  assert.is(await h.admin.social.services.scheduled.publishDue(), 0, 'never posted twice');
});

test('at most 25 a day', async () => {
  const day = new Date(Date.now() + 3 * 86_400_000);
  day.setUTCHours(12, 0, 0, 0);
  for (let i = 0; i < 25; i++) {
    const res = await schedule(lou, {
      status: `post ${i}`,
      scheduled_at: new Date(day.getTime() + i * 60_000).toISOString(),
    });
    assert.is(res.status, 200, JSON.stringify(res.body));
  }
  const refused = await schedule(lou, {
    status: 'one too many',
    scheduled_at: new Date(day.getTime() + 3_600_000).toISOString(),
  });
  assert.is(refused.status, 422);
  assert.match(refused.body.error, /25 scheduled posts for today/);
  assert.is(
    (
      await schedule(lou, {
        status: 'next day is fine',
        scheduled_at: new Date(day.getTime() + 86_400_000).toISOString(),
      })
    ).status,
    200,
  );

  const page = await h.api(lou.token, 'GET', '/api/v1/scheduled_statuses?limit=10');
  assert.is(page.body.length, 10);
  const next = /<([^>]+)>; rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
  const nextUrl = new URL(next!);
  nextUrl.searchParams.set('limit', '40');
  const rest = await h.api(lou.token, 'GET', nextUrl.pathname + nextUrl.search);
  assert.is(rest.body.length, 16, 'the other 16 of 26');
  assert.not.ok(rest.body.some((s: { id: string }) => page.body.some((p: { id: string }) => p.id === s.id)));
});

test.run();
