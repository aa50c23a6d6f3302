/** Scheduled statuses: posting with scheduled_at, the list, moving and cancelling, media held, posting when due. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { uploadPng } from '../helpers/media-files.js';

let h: SocialHarness;
let kim: TestAccount, lou: TestAccount;

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

async function schedule(who: TestAccount, body: Record<string, unknown>) {
  return h.api(who.token, 'POST', '/api/v1/statuses', body);
}

const ownStatuses = async (who: TestAccount) =>
  (await h.api(who.token, 'GET', `/api/v1/accounts/${who.id}/statuses`)).body as Array<Record<string, any>>;

test.before(async () => {
  h = await startSocialDaemon();
  kim = await h.account('kim');
  lou = await h.account('lou');
});
test.after(async () => {
  await h?.stop();
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
