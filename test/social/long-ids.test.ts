/** Ids above 2^53 sent as JSON numbers reach the routes with every digit. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let ana: TestAccount, bo: TestAccount;

test.before(async () => {
  h = await startSocialDaemon();
  ana = await h.account('ana');
  bo = await h.account('bo');
});
test.after(async () => {
  await h?.stop();
});

/** The id written as a bare JSON number, as a client that parsed it as a 64-bit integer sends it. */
const bare = (id: string) => {
  assert.ok(BigInt(id) > 2n ** 53n, `the id ${id} is above 2^53`);
  return id;
};

test('a reply, and a reply with a poll, name their parent by a numeric in_reply_to_id', async () => {
  const parent = (await h.api(ana.token, 'POST', '/api/v1/statuses', { status: 'a question' })).body;
  const reply = await h.api(
    bo.token,
    'POST',
    '/api/v1/statuses',
    `{"status":"an answer","in_reply_to_id":${bare(parent.id)}}`,
  );
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.in_reply_to_id, parent.id);
  const poll = await h.api(
    bo.token,
    'POST',
    '/api/v1/statuses',
    `{"status":"vote","in_reply_to_id":${parent.id},"poll":{"options":["yes","no"],"expires_in":3600}}`,
  );
  assert.is(poll.status, 200, JSON.stringify(poll.body));
  assert.is(poll.body.in_reply_to_id, parent.id);
  assert.is(poll.body.poll.options.length, 2);
});

test('a marker takes a numeric last_read_id', async () => {
  const seen = (await h.api(bo.token, 'POST', '/api/v1/statuses', { status: 'seen' })).body;
  const marker = await h.api(ana.token, 'POST', '/api/v1/markers', `{"home":{"last_read_id":${bare(seen.id)}}}`);
  assert.is(marker.status, 200, JSON.stringify(marker.body));
  assert.is(marker.body.home.last_read_id, seen.id);
});

test('arrays of numeric ids: list members and reported statuses', async () => {
  const list = (await h.api(ana.token, 'POST', '/api/v1/lists', { title: 'friends' })).body;
  await h.api(ana.token, 'POST', `/api/v1/accounts/${bo.id}/follow`);
  const added = await h.api(ana.token, 'POST', `/api/v1/lists/${list.id}/accounts`, `{"account_ids":[${bare(bo.id)}]}`);
  assert.is(added.status, 200, JSON.stringify(added.body));
  const members = (await h.api(ana.token, 'GET', `/api/v1/lists/${list.id}/accounts`)).body;
  assert.equal(
    members.map((a: { id: string }) => a.id),
    [bo.id],
  );
  const rude = (await h.api(bo.token, 'POST', '/api/v1/statuses', { status: 'rude' })).body;
  const report = await h.api(
    ana.token,
    'POST',
    '/api/v1/reports',
    `{"account_id":${bare(bo.id)},"status_ids":[${bare(rude.id)}],"comment":"rude"}`,
  );
  assert.is(report.status, 200, JSON.stringify(report.body));
  assert.equal(report.body.status_ids.map(String), [rude.id]);
});

test('small numbers, decimals and text keep their JSON meaning beside a long id', async () => {
  const parent = (await h.api(ana.token, 'POST', '/api/v1/statuses', { status: 'parent' })).body;
  const reply = await h.api(
    bo.token,
    'POST',
    '/api/v1/statuses',
    `{"status":"1234567890123456789 in text","in_reply_to_id":${parent.id},"sensitive":true,"poll":{"options":["a","b"],"expires_in":300.0}}`,
  );
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.sensitive, true);
  assert.match(reply.body.content, /1234567890123456789 in text/);
  const broken = await h.api(bo.token, 'POST', '/api/v1/statuses', `{"status":"x","in_reply_to_id":${parent.id}`);
  assert.is(broken.status, 400);
  assert.is(broken.body.error, 'Invalid JSON in request body');
});

test.run();
