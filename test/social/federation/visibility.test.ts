/**
 * The visibility rule across two real daemons: a peer fetching or resolving a status is signed in
 * as no one on its author's server, so it gets public and unlisted statuses and nothing else.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SocialHarness, TestAccount } from '../../helpers/social.js';
import { startFederatedDaemon } from '../../helpers/federation.js';

let A: SocialHarness;
let B: SocialHarness;
let alice: TestAccount; // on A
let erin: TestAccount; // on B

test.before(async () => {
  [A, B] = await Promise.all([startFederatedDaemon(), startFederatedDaemon()]);
  alice = await A.account('alice');
  erin = await B.account('erin');
});

test.after(async () => {
  await Promise.all([A?.stop(), B?.stop()]);
});

test('a peer resolving a status by URL or URI gets public and unlisted ones only', async () => {
  for (const visibility of ['public', 'unlisted', 'private', 'direct']) {
    const word = `federated${visibility}${Math.random().toString(36).slice(2, 8)}`;
    const posted = await A.api(alice.token, 'POST', '/api/v1/statuses', { status: `${word} for no one on B`, visibility });
    assert.is(posted.status, 200, JSON.stringify(posted.body));
    const open = visibility === 'public' || visibility === 'unlisted';
    for (const address of [posted.body.url, posted.body.uri]) {
      const found = await B.api(erin.token, 'GET', `/api/v2/search?resolve=true&type=statuses&q=${encodeURIComponent(address)}`);
      assert.is(found.status, 200);
      const text = JSON.stringify(found.body);
      if (open) assert.ok(text.includes(word), `${visibility} found by ${address}`);
      else assert.equal(found.body.statuses, [], `${visibility} found by ${address}`);
    }
    const fetched = await fetch(posted.body.uri, { headers: { accept: 'application/activity+json' } });
    assert.is(fetched.status, open ? 200 : 404, `unsigned fetch of a ${visibility} status`);
  }
});

test.run();
