/**
 * The visibility rule across real daemons: a peer fetching or resolving a status is signed in as
 * no one on its author's server, so it gets public and unlisted statuses and nothing else; a
 * peer's actor acts (votes, favourites) only on statuses it may see.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SocialHarness, TestAccount } from '../../helpers/social.js';
import { startFederatedDaemon } from '../../helpers/federation.js';
import { FakePeer, type FakeActor } from '../../helpers/fake-peer.js';

let A: SocialHarness;
let B: SocialHarness;
let alice: TestAccount; // on A
let erin: TestAccount; // on B
let peer: FakePeer;
let mallory: FakeActor; // on the fake peer, following no one

test.before(async () => {
  [A, B, peer] = await Promise.all([startFederatedDaemon(), startFederatedDaemon(), FakePeer.start()]);
  mallory = peer.actor('mallory');
  alice = await A.account('alice');
  erin = await B.account('erin');
});

test.after(async () => {
  await Promise.all([A?.stop(), B?.stop(), peer?.close()]);
});

test('a peer resolving a status by URL or URI gets public and unlisted ones only', async () => {
  for (const visibility of ['public', 'unlisted', 'private', 'direct']) {
    const word = `federated${visibility}${Math.random().toString(36).slice(2, 8)}`;
    const posted = await A.api(alice.token, 'POST', '/api/v1/statuses', {
      status: `${word} for no one on B`,
      visibility,
    });
    assert.is(posted.status, 200, JSON.stringify(posted.body));
    const open = visibility === 'public' || visibility === 'unlisted';
    for (const address of [posted.body.url, posted.body.uri]) {
      const found = await B.api(
        erin.token,
        'GET',
        `/api/v2/search?resolve=true&type=statuses&q=${encodeURIComponent(address)}`,
      );
      assert.is(found.status, 200);
      const text = JSON.stringify(found.body);
      if (open) assert.ok(text.includes(word), `${visibility} found by ${address}`);
      else assert.equal(found.body.statuses, [], `${visibility} found by ${address}`);
    }
    const fetched = await fetch(posted.body.uri, { headers: { accept: 'application/activity+json' } });
    assert.is(fetched.status, open ? 200 : 404, `unsigned fetch of a ${visibility} status`);
  }
});

test('a peer account votes in and favourites only statuses it may see', async () => {
  let n = 0;
  const send = async (activity: object) => {
    const answer = await peer.post(
      `${A.url}/inbox`,
      mallory,
      JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', actor: mallory.uri, ...activity }),
    );
    assert.is(answer.status, 202, answer.text);
  };
  const counts: Record<string, { votes: number; favourites: number }> = {};
  for (const visibility of ['private', 'public']) {
    const posted = await A.api(alice.token, 'POST', '/api/v1/statuses', {
      status: `vote ${visibility}`,
      visibility,
      poll: { options: ['yes', 'no'], expires_in: 3600 },
    });
    assert.is(posted.status, 200, JSON.stringify(posted.body));
    const vote = {
      id: `${mallory.uri}#votes/${++n}`,
      type: 'Note',
      name: 'yes',
      inReplyTo: posted.body.uri,
      attributedTo: mallory.uri,
      to: [`${A.url}/users/alice`],
    };
    await send({ id: `${mallory.uri}#creates/${n}`, type: 'Create', object: vote });
    await send({ id: `${mallory.uri}#likes/${n}`, type: 'Like', object: posted.body.uri });
    const seen = (await A.api(alice.token, 'GET', `/api/v1/statuses/${posted.body.id}`)).body;
    counts[visibility] = { votes: seen.poll.votes_count, favourites: seen.favourites_count };
  }
  assert.equal(counts, { private: { votes: 0, favourites: 0 }, public: { votes: 1, favourites: 1 } });
});

test('a signed fetch sees a private status as its signer: a follower gets it, anyone else (or a bad signature) 404', async () => {
  const follower = peer.actor(`fol${Math.random().toString(36).slice(2, 8)}`);
  const stranger = peer.actor(`str${Math.random().toString(36).slice(2, 8)}`);
  const follow = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${follower.uri}#follows/1`,
    type: 'Follow',
    actor: follower.uri,
    object: `${A.url}/users/alice`,
  };
  assert.is((await peer.post(`${A.url}/users/alice/inbox`, follower, JSON.stringify(follow))).status, 202);
  const word = `signedfetch${Math.random().toString(36).slice(2, 8)}`;
  const posted = await A.api(alice.token, 'POST', '/api/v1/statuses', {
    status: `followers only ${word}`,
    visibility: 'private',
  });
  assert.is(posted.status, 200);
  const asFollower = await peer.get(posted.body.uri, follower);
  assert.is(asFollower.status, 200, asFollower.text);
  assert.ok(asFollower.text.includes(word));
  const asStranger = await peer.get(posted.body.uri, stranger);
  assert.is(asStranger.status, 404);
  assert.not.ok(asStranger.text.includes(word));
  // The follower's key id with the stranger's key: a signature that does not verify is no one's.
  const forged = await peer.get(posted.body.uri, { ...stranger, keyId: follower.keyId });
  assert.is(forged.status, 404);
  assert.not.ok(forged.text.includes(word));
});

test("a server its author blocks gets none of the author's statuses on a signed fetch; others still do", async () => {
  const fetcher = peer.actor(`dom${Math.random().toString(36).slice(2, 8)}`);
  const posted = await A.api(alice.token, 'POST', '/api/v1/statuses', { status: 'public, but not for that server' });
  assert.is(posted.status, 200);
  assert.is((await peer.get(posted.body.uri, fetcher)).status, 200, 'seen before the block');
  const block = await A.api(alice.token, 'POST', '/api/v1/domain_blocks', { domain: peer.domain });
  assert.is(block.status, 200);
  try {
    const blocked = await peer.get(posted.body.uri, fetcher);
    assert.is(blocked.status, 404);
    assert.not.ok(blocked.text.includes('not for that server'));
    const fromB = await B.api(
      erin.token,
      'GET',
      `/api/v2/search?q=${encodeURIComponent(posted.body.uri)}&resolve=true`,
    );
    assert.is(fromB.body.statuses.length, 1, 'another server still resolves it');
  } finally {
    await A.api(alice.token, 'DELETE', '/api/v1/domain_blocks', { domain: peer.domain });
  }
});

test.run();
