/**
 * One delivery per server: a public post that mentions a follower reaches the follower's server
 * once, at its shared inbox, though two of its accounts follow and one is mentioned.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { domainOf, eventually, resolveAccount, startFederatedDaemon } from '../../helpers/federation.js';
import type { SocialHarness, TestAccount } from '../../helpers/social.js';

let A: SocialHarness;
let B: SocialHarness;
let amy: TestAccount; // on A
let ben: TestAccount, bea: TestAccount; // on B

test.before(async () => {
  [A, B] = await Promise.all([startFederatedDaemon(), startFederatedDaemon({ env: { NESTBOX_LOG_LEVEL: 'debug' } })]);
  amy = await A.account('amy');
  ben = await B.account('ben');
  bea = await B.account('bea');
});
test.after(async () => {
  await Promise.all([A?.stop(), B?.stop()]);
});

const inboxPosts = (on: SocialHarness) =>
  on.daemon.logs.filter((line) => line.msg === 'request' && line.method === 'POST' && /inbox$/.test(String(line.path)));

test('a post to followers that mentions one of them arrives once, at the shared inbox', async () => {
  for (const follower of [ben, bea]) {
    const amyOnB = await resolveAccount(B, follower.token, `amy@${domainOf(A)}`);
    await B.api(follower.token, 'POST', `/api/v1/accounts/${amyOnB.id}/follow`);
    await eventually('the follow accepted', async () => {
      const rel = (await B.api(follower.token, 'GET', `/api/v1/accounts/relationships?id[]=${amyOnB.id}`)).body[0];
      return rel.following;
    });
  }
  await eventually('both followers known on A', async () => {
    const me = (await A.api(amy.token, 'GET', '/api/v1/accounts/verify_credentials')).body;
    return me.followers_count === 2;
  });
  const before = inboxPosts(B).length;
  const posted = await A.api(amy.token, 'POST', '/api/v1/statuses', { status: `hello @ben@${domainOf(B)}` });
  assert.is(posted.status, 200);
  await eventually('the mention on B', async () => {
    const got = (await B.api(ben.token, 'GET', '/api/v1/notifications?types[]=mention')).body;
    return got.length === 1;
  });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const arrived = inboxPosts(B).slice(before);
  assert.equal(
    arrived.map((line) => line.path),
    ['/inbox'],
  );
});

test.run();
