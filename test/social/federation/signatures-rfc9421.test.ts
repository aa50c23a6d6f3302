/**
 * RFC 9421 HTTP Message Signatures on inbound requests, beside draft-cavage: requests signed by
 * hand (the signature base written out, signed with node:crypto) by a fake peer on loopback, to a
 * real daemon. Good ones (rsa-v1_5-sha256 and ed25519, @target-uri or @authority + @path, alg
 * given or left to the key; an Ed25519 key listed beside the RSA one) are taken; tampered, stale, wrong-key, wrong-digest, under-covered and
 * forged-actor ones are 401 and store nothing — the same checks as for cavage.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import type { SocialHarness, TestAccount } from '../../helpers/social.js';
import { eventually, startFederatedDaemon } from '../../helpers/federation.js';
import { FakePeer, type FakeActor } from '../../helpers/fake-peer.js';

let A: SocialHarness;
let peer: FakePeer;
let alice: TestAccount;
let rosa: FakeActor; // RSA key
let eddie: FakeActor; // Ed25519 key
let mallory: FakeActor;

test.before(async () => {
  [A, peer] = await Promise.all([startFederatedDaemon(), FakePeer.start()]);
  alice = await A.account('alice');
  rosa = peer.actor('rosa');
  eddie = peer.actor('eddie', 'ed25519');
  mallory = peer.actor('mallory');
});

test.after(async () => {
  await Promise.all([A?.stop(), peer?.close()]);
});

const mention = (actor: FakeActor, text: string, claimedActor = actor.uri): string =>
  peer.mention(actor, text, `${A.url}/users/alice`, claimedActor);

/** The texts of alice's mentions (filtered ones too: strangers' direct mentions are held back). */
const mentionTexts = async (): Promise<string[]> =>
  ((await A.api(alice.token, 'GET', '/api/v1/notifications?types[]=mention&include_filtered=true')).body as any[]).map(
    (n) => String(n.status.content),
  );

/** 401 for the reason expected (the daemon's log line says which), and nothing stored. */
async function refused(
  what: string,
  answer: Promise<{ status: number; text: string }>,
  text: string,
  reason: RegExp,
): Promise<void> {
  const before = A.daemon.logs.length;
  const { status } = await answer;
  assert.is(status, 401, what);
  const said = A.daemon.logs
    .slice(before)
    .filter((line) => /refused/.test(line.msg))
    .map((line) => (typeof line.reason === 'string' ? line.reason : line.msg));
  assert.ok(
    said.some((line) => reason.test(line)),
    `${what}: ${JSON.stringify(said)}`,
  );
  assert.ok(!(await mentionTexts()).some((content) => content.includes(text)), `${what}: nothing stored`);
}

test('a request signed with RFC 9421 and rsa-v1_5-sha256 is taken', async () => {
  const answer = await peer.postRfc9421(`${A.url}/inbox`, rosa, mention(rosa, 'rfc9421 rsa'));
  assert.is(answer.status, 202, answer.text);
  await eventually('the mention', async () => (await mentionTexts()).some((c) => c.includes('rfc9421 rsa')));
});

test('ed25519, @authority with @path instead of @target-uri, and no alg (the key says which) are taken', async () => {
  const ed = await peer.postRfc9421(`${A.url}/users/alice/inbox`, eddie, mention(eddie, 'rfc9421 ed25519'));
  assert.is(ed.status, 202, ed.text);
  const split = await peer.postRfc9421(`${A.url}/inbox`, rosa, mention(rosa, 'authority and path'), {
    components: ['@method', '@authority', '@path', 'content-digest'],
  });
  assert.is(split.status, 202, split.text);
  const noAlg = await peer.postRfc9421(`${A.url}/inbox`, eddie, mention(eddie, 'no alg given'), { alg: null });
  assert.is(noAlg.status, 202, noAlg.text);
  await eventually('the three mentions', async () => {
    const texts = await mentionTexts();
    return ['rfc9421 ed25519', 'authority and path', 'no alg given'].every((t) => texts.some((c) => c.includes(t)));
  });
});

test('an Ed25519 key beside the RSA one, as a Multikey (assertionMethod) or in additionalPublicKeys, signs too', async () => {
  const multikey = await peer.extraKey(rosa, 'multikey');
  const viaMultikey = await peer.postRfc9421(`${A.url}/inbox`, multikey, mention(multikey, 'multikey ed25519'));
  assert.is(viaMultikey.status, 202, viaMultikey.text);
  const misskey = await peer.extraKey(rosa, 'misskey');
  const viaMisskey = await peer.postRfc9421(`${A.url}/inbox`, misskey, mention(misskey, 'misskey ed25519'));
  assert.is(viaMisskey.status, 202, viaMisskey.text);
  await eventually('both mentions', async () => {
    const texts = await mentionTexts();
    return ['multikey ed25519', 'misskey ed25519'].every((t) => texts.some((c) => c.includes(t)));
  });
  // A key id the actor does not list is no key of its.
  const unlisted = { ...multikey, keyId: `${rosa.uri}#unlisted` };
  await refused(
    'an unlisted key id',
    peer.postRfc9421(`${A.url}/inbox`, unlisted, mention(unlisted, 'unlisted key')),
    'unlisted key',
    /unknown key/,
  );
});

test('a body other than the signed one (Content-Digest mismatch) is 401', async () => {
  await refused(
    'tampered',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention(rosa, 'signed 9421'), {
      sendInstead: mention(rosa, 'tampered 9421'),
    }),
    'tampered 9421',
    /Content-Digest does not match the body/,
  );
});

test('a Content-Digest that is wrong though signed, or of no known algorithm, is 401', async () => {
  const body = mention(rosa, 'wrong digest');
  const other = createHash('sha512').update('something else').digest('base64');
  await refused(
    'sha-512 of other bytes',
    peer.postRfc9421(`${A.url}/inbox`, rosa, body, { contentDigest: `sha-512=:${other}:` }),
    'wrong digest',
    /Content-Digest does not match the body/,
  );
  const md5 = createHash('md5').update(body).digest('base64');
  await refused(
    'only an unknown algorithm',
    peer.postRfc9421(`${A.url}/inbox`, rosa, body, { contentDigest: `md5=:${md5}:` }),
    'wrong digest',
    /no sha-256 or sha-512 digest/,
  );
});

test('a stale or far-future created time is 401 (the window of a cavage Date)', async () => {
  await refused(
    '13 hours old',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention(rosa, 'stale 9421'), {
      created: new Date(Date.now() - 13 * 3600_000),
    }),
    'stale 9421',
    /created time outside acceptable time window/,
  );
  await refused(
    '2 hours ahead',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention(rosa, 'future 9421'), {
      created: new Date(Date.now() + 2 * 3600_000),
    }),
    'future 9421',
    /created time outside acceptable time window/,
  );
});

test('signed with another key than the keyid’s, or naming the wrong algorithm, is 401', async () => {
  await refused(
    'mallory’s key under rosa’s keyid',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention(rosa, 'wrong key 9421'), {
      signingKeyPem: mallory.privateKeyPem,
    }),
    'wrong key 9421',
    /rfc9421 signature does not verify/,
  );
  await refused(
    'ed25519 claimed for an RSA key',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention(rosa, 'wrong alg 9421'), { alg: 'ed25519' }),
    'wrong alg 9421',
    /rfc9421 signature does not verify/,
  );
  await refused(
    'an algorithm the box does not take',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention(rosa, 'hmac 9421'), { alg: 'hmac-sha256' }),
    'hmac 9421',
    /algorithm "hmac-sha256" is not supported/,
  );
});

test('a signature that does not cover the method, the target or the digest is 401', async () => {
  for (const [what, components] of [
    ['no @method', ['@target-uri', 'content-digest']],
    ['no target', ['@method', 'content-digest']],
    ['@authority without @path', ['@method', '@authority', 'content-digest']],
    ['no content-digest', ['@method', '@target-uri', 'date']],
  ] as const) {
    await refused(
      what,
      peer.postRfc9421(`${A.url}/inbox`, rosa, mention(rosa, `cover ${what}`), { components: [...components] }),
      `cover ${what}`,
      /signature does not cover/,
    );
  }
});

test('an activity whose actor is not the signer is 401, as with cavage', async () => {
  await refused(
    'rosa signs, mallory claimed',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention(rosa, 'forged 9421', mallory.uri)),
    'forged 9421',
    /actor is not the signer/,
  );
});

test('a signed fetch with RFC 9421 reads what its signer may see: a followers-only post of a followed account', async () => {
  // rosa follows alice (alice is not locked): her followers-only post is then rosa's to fetch.
  const follow = JSON.stringify({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${rosa.uri}#follows/1`,
    type: 'Follow',
    actor: rosa.uri,
    object: `${A.url}/users/alice`,
  });
  assert.is((await peer.postRfc9421(`${A.url}/inbox`, rosa, follow)).status, 202);
  await eventually('the follower', async () => {
    const me = (await A.api(alice.token, 'GET', '/api/v1/accounts/verify_credentials')).body;
    return me.followers_count === 1;
  });
  const post = await A.api(alice.token, 'POST', '/api/v1/statuses', { status: 'for followers', visibility: 'private' });
  const url = `${A.url}/users/alice/statuses/${post.body.id}`;
  const signed = await peer.postRfc9421(url, rosa, '', { method: 'GET' });
  assert.is(signed.status, 200, signed.text);
  assert.match(signed.text, 'for followers');
  const stranger = await peer.postRfc9421(url, mallory, '', { method: 'GET' });
  assert.is(stranger.status, 404);
  const forgedKey = await peer.postRfc9421(url, rosa, '', { method: 'GET', signingKeyPem: mallory.privateKeyPem });
  assert.is(forgedKey.status, 404, 'a signature that does not verify reads as no one');
});

test.run();
