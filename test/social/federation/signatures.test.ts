/**
 * Incoming signatures, against a fake peer on loopback: a correctly signed activity is taken;
 * unsigned, tampered, replayed (old date) and forged-actor requests get 401 and store nothing;
 * a rotated key is fetched again; bad JSON-LD is refused with a log line.
 *
 * Then RFC 9421 HTTP Message Signatures on inbound requests, beside draft-cavage: requests signed
 * by hand (the signature base written out, signed with node:crypto) by the fake peer, to the same
 * daemon. Good ones (rsa-v1_5-sha256 and ed25519, @target-uri or @authority + @path, alg given or
 * left to the key; an Ed25519 key listed beside the RSA one) are taken; tampered, stale,
 * wrong-key, wrong-digest, under-covered and forged-actor ones are 401 and store nothing: the same
 * checks as for cavage.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SocialHarness, TestAccount } from '../../helpers/social.js';
import { eventually, startFederatedDaemon } from '../../helpers/federation.js';
import { png } from '../../helpers/media-files.js';
import { FakePeer, type FakeActor } from '../../helpers/fake-peer.js';
import httpSignature from '@peertube/http-signature';
import { createHash } from 'node:crypto';

let A: SocialHarness;
let peer: FakePeer;
let alice: TestAccount;
let mallory: FakeActor;
let trent: FakeActor;
let rhea: TestAccount; // the RFC 9421 tests' recipient
let rosa: FakeActor; // RSA key
let eddie: FakeActor; // Ed25519 key
let mallet: FakeActor;
let counter = 0;

test.before(async () => {
  [A, peer] = await Promise.all([startFederatedDaemon(), FakePeer.start()]);
  alice = await A.account('alice');
  mallory = peer.actor('mallory');
  trent = peer.actor('trent');
  rhea = await A.account('rhea');
  rosa = peer.actor('rosa');
  eddie = peer.actor('eddie', 'ed25519');
  mallet = peer.actor('mallet');
});

test.after(async () => {
  await Promise.all([A?.stop(), peer?.close()]);
});

const mention = (actor: FakeActor, text: string): string => peer.mention(actor, text, `${A.url}/users/alice`);

// With the filtered ones: a stranger's direct mention is held back by alice's default policy.
const mentions = async () =>
  (await A.api(alice.token, 'GET', '/api/v1/notifications?types[]=mention&include_filtered=true')).body as any[];
const knowsAccount = async (actor: FakeActor) =>
  (await A.api(alice.token, 'GET', `/api/v1/accounts/lookup?acct=${actor.username}@${peer.domain}`)).status === 200;

test('an unsigned POST to an inbox is 401 and stores nothing', async () => {
  const answer = await peer.post(`${A.url}/inbox`, null, mention(mallory, 'unsigned'));
  assert.is(answer.status, 401);
  assert.equal(await mentions(), []);
  assert.is(await knowsAccount(mallory), false);
});

test('a body other than the signed one (digest mismatch) is 401 and stores nothing', async () => {
  const answer = await peer.post(`${A.url}/inbox`, mallory, mention(mallory, 'signed'), {
    sendInstead: mention(mallory, 'tampered'),
  });
  assert.is(answer.status, 401);
  assert.equal(await mentions(), []);
  assert.is(await knowsAccount(mallory), false);
});

test('a replayed request with a date older than the window is 401', async () => {
  const answer = await peer.post(`${A.url}/users/alice/inbox`, mallory, mention(mallory, 'old'), {
    date: new Date(Date.now() - 13 * 3600_000),
  });
  assert.is(answer.status, 401);
  const future = await peer.post(`${A.url}/users/alice/inbox`, mallory, mention(mallory, 'future'), {
    date: new Date(Date.now() + 2 * 3600_000),
  });
  assert.is(future.status, 401);
  assert.equal(await mentions(), []);
});

test('a correctly signed Create with a mention is taken and notifies', async () => {
  const answer = await peer.post(`${A.url}/users/alice/inbox`, mallory, mention(mallory, 'hello alice'));
  assert.is(answer.status, 202, answer.text);
  const list = await mentions();
  assert.is(list.length, 1);
  assert.is(list[0].account.acct, `mallory@${peer.domain}`);
  assert.match(list[0].status.content, 'hello alice');
});

test('fetches of a peer’s documents are signed by the instance actor', async () => {
  const instance = (await A.daemon.json('/actor')).body;
  assert.is(instance.type, 'Application');
  const fetch = peer.gets.find((get) => get.url === '/users/mallory');
  assert.ok(fetch, 'the key was fetched');
  const parsed = httpSignature.parseRequest(fetch, { headers: ['(request-target)', 'host', 'date'] });
  assert.is(parsed.keyId, `${A.url}/actor#main-key`);
  assert.is(httpSignature.verifySignature(parsed, instance.publicKey.publicKeyPem), true);
});

test('a Flag becomes a report the owner reviews; it cites posts among its first 100 objects only', async () => {
  await A.account('boss', { owner: true });
  const reviewer = await A.token('boss', 'admin:read');
  const post = (await A.api(alice.token, 'POST', '/api/v1/statuses', { status: 'reported here' })).body;
  const flag = (comment: string, objects: string[]) =>
    JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${mallory.uri}#flags/${++counter}`,
      type: 'Flag',
      actor: mallory.uri,
      content: comment,
      object: objects,
    });
  const junk = Array.from({ length: 99 }, (_, i) => `${peer.url}/nothing/${i}`);
  for (const [comment, objects] of [
    ['cited', [`${A.url}/users/alice`, post.uri]],
    ['too far down', [`${A.url}/users/alice`, ...junk, post.uri]],
  ] as const) {
    const answer = await peer.post(`${A.url}/inbox`, mallory, flag(comment, [...objects]));
    assert.is(answer.status, 202, answer.text);
  }
  const reports = await eventually('both reports', async () => {
    const list = (await A.api(reviewer, 'GET', `/api/v1/admin/reports?target_account_id=${alice.id}`)).body as any[];
    return list.length === 2 ? list : null;
  });
  const byComment = new Map(reports.map((report) => [report.comment, report]));
  assert.is(byComment.get('cited').account.username, 'mallory');
  assert.equal(
    byComment.get('cited').statuses.map((s: { id: string }) => s.id),
    [post.id],
  );
  assert.equal(byComment.get('too far down').statuses, [], 'an object past the first 100 is not read');
});

test('an activity whose actor is not the signer (forged actor) is 401 and stores nothing', async () => {
  const forged = mention(trent, 'I am trent');
  const answer = await peer.post(`${A.url}/inbox`, mallory, forged);
  assert.is(answer.status, 401);
  assert.is((await mentions()).length, 1);
  assert.is(await knowsAccount(trent), false);
});

test('a signature made with another key than the actor’s is 401', async () => {
  const impostor: FakeActor = { ...mallory, privateKeyPem: trent.privateKeyPem };
  const answer = await peer.post(`${A.url}/inbox`, impostor, mention(mallory, 'wrong key'));
  assert.is(answer.status, 401);
  assert.is((await mentions()).length, 1);
});

test('a rotated key is fetched again and verifies', async () => {
  mallory = peer.actor('mallory');
  const answer = await peer.post(`${A.url}/inbox`, mallory, mention(mallory, 'new key'));
  assert.is(answer.status, 202, answer.text);
  assert.is((await mentions()).length, 2);
});

test('a signed body that is not JSON, or not an activity, is 400 with a log line', async () => {
  const answer = await peer.post(`${A.url}/inbox`, mallory, '{"not json');
  assert.is(answer.status, 400);
  const note = await peer.post(
    `${A.url}/inbox`,
    mallory,
    JSON.stringify({
      id: 'x',
      type: 'Create',
      actor: mallory.uri,
      object: { type: 'Note', id: 'http://elsewhere.example/1', attributedTo: mallory.uri },
    }),
  );
  assert.is(note.status, 400);
  await A.daemon.waitForLog((line) => line.msg === 'inbox rejected a malformed activity');
  assert.is(A.daemon.child.exitCode, null);
});

test('an Update of a remote note edits it; a Reject of our follow request withdraws it', async () => {
  const create = JSON.parse(mention(mallory, 'before the edit'));
  // Hashtags are read from Hashtag tags; invalid names and other tag types are skipped.
  create.object.tag = [
    ...create.object.tag,
    { type: 'Hashtag', name: '#Before', href: 'https://x.test/tags/before' },
    { type: 'Hashtag', name: '#not valid!' },
    { type: 'Emoji', name: ':blob:' },
  ];
  assert.is((await peer.post(`${A.url}/inbox`, mallory, JSON.stringify(create))).status, 202);
  const tagsOf = async () =>
    ((await mentions()).find((n) => n.status.uri === create.object.id).status.tags as Array<{ name: string }>).map(
      (t) => t.name,
    );
  assert.equal(await tagsOf(), ['before']);
  const edited = {
    ...create.object,
    content: '<p>after the edit</p>',
    updated: new Date().toISOString(),
    tag: [
      ...create.object.tag.filter((t: { type: string }) => t.type !== 'Hashtag'),
      { type: 'Hashtag', name: 'After' },
    ],
  };
  const update = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${create.object.id}#updates/1`,
    type: 'Update',
    actor: mallory.uri,
    object: edited,
  };
  assert.is((await peer.post(`${A.url}/inbox`, mallory, JSON.stringify(update))).status, 202);
  const status = (await mentions()).find((n) => n.status.uri === create.object.id).status;
  assert.match(status.content, 'after the edit');
  assert.ok(status.edited_at);
  assert.equal(await tagsOf(), ['after'], 'the Update replaces the hashtags');

  const malloryOnA = (await A.api(alice.token, 'GET', `/api/v1/accounts/lookup?acct=mallory@${peer.domain}`)).body;
  await A.api(alice.token, 'POST', `/api/v1/accounts/${malloryOnA.id}/follow`);
  const rel = async () =>
    (await A.api(alice.token, 'GET', `/api/v1/accounts/relationships?id[]=${malloryOnA.id}`)).body[0];
  assert.is((await rel()).requested, true);
  const reject = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${mallory.uri}#rejects/1`,
    type: 'Reject',
    actor: mallory.uri,
    object: {
      id: `${A.url}/users/alice#follows/x`,
      type: 'Follow',
      actor: `${A.url}/users/alice`,
      object: mallory.uri,
    },
  };
  assert.is((await peer.post(`${A.url}/inbox`, mallory, JSON.stringify(reject))).status, 202);
  assert.is((await rel()).requested, false);
  assert.is((await rel()).following, false);
});

test('a key rotated through a signed Update of the actor is used without fetching again', async () => {
  const oldKey = { ...mallory };
  const rotated = peer.actor('mallory');
  // The peer keeps serving the old document: only the Update can teach the new key.
  peer.actors.set('mallory', oldKey);
  const update = {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: `${mallory.uri}#updates/key`,
    type: 'Update',
    actor: mallory.uri,
    object: peer.document(rotated),
  };
  assert.is((await peer.post(`${A.url}/inbox`, oldKey, JSON.stringify(update))).status, 202);
  const before = (await mentions()).length;
  const answer = await peer.post(`${A.url}/inbox`, rotated, mention(rotated, 'signed with the rotated key'));
  assert.is(answer.status, 202, answer.text);
  assert.is((await mentions()).length, before + 1);
  mallory = rotated;
  peer.actors.set('mallory', rotated);
});

test('odd or hostile activity shapes are answered 202 or 400, never 500', async () => {
  const me = mallory.uri;
  const alice = `${A.url}/users/alice`;
  const shapes: unknown[] = [
    { type: 'Create', actor: me, object: null },
    { type: 'Create', actor: me, object: 42 },
    {
      type: 'Create',
      actor: me,
      object: { type: ['Note', 'Object'], id: `${me}/notes/x1`, attributedTo: [me], content: { html: true } },
    },
    {
      type: 'Create',
      actor: me,
      object: { type: 'Note', id: `${me}/notes/x2`, attributedTo: alice, content: 'claims to be alice' },
    },
    { type: ['Like'], actor: { id: me }, object: { id: `${A.url}/users/alice/statuses/1` } },
    { type: 'Like', actor: me, object: [] },
    { type: 'Announce', actor: me, object: 'not a url' },
    { type: 'Undo', actor: me, object: { type: 'Follow', actor: alice, object: me } },
    { type: 'Undo', actor: me, object: 'x' },
    { type: 'Delete', actor: me, object: { id: 12 } },
    { type: 'Update', actor: me, object: { type: 'Person', id: alice } },
    { type: 'Move', actor: me, object: alice, target: me },
    { type: 'Accept', actor: me, object: { actor: [alice] } },
    { type: 'Block', actor: me, object: { id: null } },
    { type: 'Follow', actor: me, object: 'http://elsewhere.example/users/nobody' },
    { type: 'Flag', actor: me, object: alice },
    {
      type: 'Create',
      actor: me,
      object: {
        type: 'Note',
        id: `${me}/notes/x3`,
        attributedTo: me,
        content: `<script>alert(1)</script><p onclick="x">hi <a href="javascript:alert(1)">link</a></p>`,
        to: [alice],
        tag: [{ type: 'Mention', href: alice }],
      },
    },
  ];
  for (const shape of shapes) {
    const answer = await peer.post(
      `${A.url}/inbox`,
      mallory,
      JSON.stringify({ id: `${me}#odd/${Math.random()}`, ...(shape as object) }),
    );
    assert.ok([202, 400].includes(answer.status), `${answer.status} for ${JSON.stringify(shape)}: ${answer.text}`);
  }
  const sanitized = (await mentions()).find((n) => n.status.uri === `${me}/notes/x3`);
  assert.ok(sanitized, 'the last note was stored');
  assert.not.match(sanitized.status.content, '<script');
  assert.not.match(sanitized.status.content, 'onclick');
  assert.not.match(sanitized.status.content, 'javascript:');
  assert.is(
    (await mentions()).some((n) => n.status.uri === `${me}/notes/x2`),
    false,
  );
  assert.is(A.daemon.child.exitCode, null);
});

test('hostile attachment shapes are skipped, never a 500: non-arrays, too many, bad URLs', async () => {
  const me = mallory.uri;
  const doc = (n: number, extra: object = {}) => ({
    type: 'Document',
    mediaType: 'image/png',
    url: `${me}/media/${n}.png`,
    name: `picture ${n}`,
    width: 40,
    height: 20,
    ...extra,
  });
  const cases: Array<{ attachment: unknown; expect: string[] }> = [
    { attachment: 'http://example.invalid/a.png', expect: [] },
    { attachment: 42, expect: [] },
    { attachment: { nested: [doc(1)] }, expect: [] },
    { attachment: doc(2), expect: [`${me}/media/2.png`] },
    {
      attachment: [1, 2, 3, 4, 5, 6].map((n) => doc(n + 10)),
      expect: [11, 12, 13, 14].map((n) => `${me}/media/${n}.png`),
    },
    {
      attachment: [
        doc(20, { url: 'javascript:alert(1)' }),
        doc(21, { url: 'ftp://peer.example/x.png' }),
        doc(22, { url: 'http://user:pw@peer.example/x.png' }),
        doc(23, { url: `http://x/${'a'.repeat(5000)}` }),
        doc(24, { url: 12 }),
        doc(25, { url: null }),
        { type: 'Tombstone', url: `${me}/media/26.png` },
        doc(27, {
          url: [{ type: 'Link', href: `${me}/media/27.png` }],
          width: -3,
          height: 'tall',
          blurhash: '<script>',
          name: { x: 1 },
          mediaType: 'no type',
          focalPoint: [9, 9],
        }),
      ],
      expect: [`${me}/media/27.png`],
    },
  ];
  for (const [index, { attachment, expect }] of cases.entries()) {
    const id = `${me}/notes/media-${index}`;
    const create = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${id}/activity`,
      type: 'Create',
      actor: me,
      object: {
        id,
        type: 'Note',
        attributedTo: me,
        content: `<p>media ${index}</p>`,
        to: [`${A.url}/users/alice`],
        tag: [{ type: 'Mention', href: `${A.url}/users/alice` }],
        attachment,
      },
    };
    const answer = await peer.post(`${A.url}/inbox`, mallory, JSON.stringify(create));
    assert.is(answer.status, 202, `case ${index}: ${answer.text}`);
    const stored = (await mentions()).find((n) => n.status.uri === id);
    assert.ok(stored, `case ${index} stored`);
    const media = stored.status.media_attachments as any[];
    assert.equal(
      media.map((m) => m.remote_url),
      expect,
      `case ${index}`,
    );
    if (index === 5) {
      assert.equal(
        [media[0].type, media[0].description, media[0].blurhash, media[0].meta],
        ['unknown', null, null, null],
      );
    }
  }
  assert.is(A.daemon.child.exitCode, null);
});

test('an Update of a remote note replaces its media', async () => {
  const me = mallory.uri;
  const id = `${me}/notes/media-edit`;
  const note = (attachment: unknown[]) => ({
    id,
    type: 'Note',
    attributedTo: me,
    content: '<p>edit me</p>',
    to: [`${A.url}/users/alice`],
    tag: [{ type: 'Mention', href: `${A.url}/users/alice` }],
    attachment,
  });
  const first = [{ type: 'Image', url: `${me}/media/old.jpg`, name: 'old', summary: 'old alt text' }];
  assert.is(
    (
      await peer.post(
        `${A.url}/inbox`,
        mallory,
        JSON.stringify({ id: `${id}/create`, type: 'Create', actor: me, object: note(first) }),
      )
    ).status,
    202,
  );
  const before = (await mentions()).find((n) => n.status.uri === id).status.media_attachments as any[];
  assert.equal(
    before.map((m) => [m.type, m.remote_url, m.description]),
    [['image', `${me}/media/old.jpg`, 'old alt text']],
  );
  const second = [
    {
      type: 'Document',
      mediaType: 'video/mp4',
      url: `${me}/media/new.mp4`,
      name: 'new',
      blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj',
    },
  ];
  assert.is(
    (
      await peer.post(
        `${A.url}/inbox`,
        mallory,
        JSON.stringify({ id: `${id}/update`, type: 'Update', actor: me, object: note(second) }),
      )
    ).status,
    202,
  );
  const status = (await mentions()).find((n) => n.status.uri === id).status;
  const media = (await A.api(alice.token, 'GET', `/api/v1/statuses/${status.id}`)).body.media_attachments as any[];
  assert.equal(
    media.map((m) => [m.type, m.remote_url, m.description, m.blurhash]),
    [['video', `${me}/media/new.mp4`, 'new', 'LEHV6nWB2yk8pyo0adR*.7kCMdnj']],
  );
});

test("a peer's images are copied to the box; what is not an image, or too big, stays remote", async () => {
  const me = mallory.uri;
  peer.files.set('/media/cat.png', { type: 'image/png', body: await png(64, 48) });
  peer.files.set('/media/fake.jpg', { type: 'image/jpeg', body: Buffer.from('<html>not a picture</html>') });
  peer.files.set('/media/huge.png', {
    type: 'image/png',
    body: Buffer.concat([await png(8, 8), Buffer.alloc(17 * 1024 * 1024)]),
  });
  const id = `${me}/notes/pictures`;
  const attachment = ['cat.png', 'fake.jpg', 'huge.png'].map((name) => ({
    type: 'Image',
    url: `${peer.url}/media/${name}`,
    name,
  }));
  const create = {
    id: `${id}/create`,
    type: 'Create',
    actor: me,
    object: {
      id,
      type: 'Note',
      attributedTo: me,
      content: '<p>pictures</p>',
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      attachment,
    },
  };
  assert.is((await peer.post(`${A.url}/inbox`, mallory, JSON.stringify(create))).status, 202);
  const statusId = await eventually(
    'the note on A',
    async () =>
      (
        await A.admin.social.ctx.reader.get<{ id: string }>(
          'SELECT CAST(id AS TEXT) AS id FROM statuses WHERE uri = ?',
          [id],
        )
      )?.id,
  );
  // One at a time, in order: once the huge one was tried, all three were.
  await eventually('all three fetched', async () => peer.gets.some((g) => g.url === '/media/huge.png'));
  const media = await eventually('the copy', async () => {
    const list = (await A.api(alice.token, 'GET', `/api/v1/statuses/${statusId}`)).body.media_attachments as any[];
    return list[0].url.startsWith(A.url) ? list : null;
  });
  assert.is((await fetch(media[0].url)).status, 200);
  assert.equal(media[0].meta.original.width, 64);
  assert.equal(
    media.slice(1).map((m: any) => m.url),
    [`${peer.url}/media/fake.jpg`, `${peer.url}/media/huge.png`],
    'left remote',
  );
  assert.is((await A.daemon.json('/healthz')).status, 200);
});

test('a follow from a domain the account blocks is refused', async () => {
  const gina = await A.account('gina');
  assert.is((await A.api(gina.token, 'POST', '/api/v1/domain_blocks', { domain: peer.domain })).status, 200);
  const follow = {
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${mallory.uri}#follows/gina`,
    type: 'Follow',
    actor: mallory.uri,
    object: `${A.url}/users/gina`,
  };
  assert.is((await peer.post(`${A.url}/users/gina/inbox`, mallory, JSON.stringify(follow))).status, 202);
  assert.is((await A.api(gina.token, 'GET', `/api/v1/accounts/${gina.id}`)).body.followers_count, 0);
  assert.equal((await A.api(gina.token, 'GET', '/api/v1/notifications')).body, []);
  const harry = await A.account('harry');
  const allowed = { ...follow, id: `${mallory.uri}#follows/harry`, object: `${A.url}/users/harry` };
  assert.is((await peer.post(`${A.url}/users/harry/inbox`, mallory, JSON.stringify(allowed))).status, 202);
  assert.is((await A.api(harry.token, 'GET', `/api/v1/accounts/${harry.id}`)).body.followers_count, 1);
});

test("a peer's direct status is for the accounts it mentions: not for the sender's other followers, not on their home", async () => {
  const bob = await A.account('dm-bystander');
  const note = (text: string, to: string[]) => {
    counter += 1;
    const id = `${mallory.uri}/statuses/${counter}`;
    return {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${id}/activity`,
      type: 'Create',
      actor: mallory.uri,
      object: {
        id,
        type: 'Note',
        attributedTo: mallory.uri,
        content: `<p>${text}</p>`,
        to,
        tag: to.includes(`${A.url}/users/alice`)
          ? [{ type: 'Mention', href: `${A.url}/users/alice`, name: `@alice@${new URL(A.url).host}` }]
          : [],
        published: new Date().toISOString(),
      },
    };
  };
  // bob follows mallory (the handshake is not what this is about).
  assert.is(
    (
      await peer.post(
        `${A.url}/inbox`,
        mallory,
        JSON.stringify(note('hello world', ['https://www.w3.org/ns/activitystreams#Public'])),
      )
    ).status,
    202,
  );
  const malloryOnA = (await A.api(alice.token, 'GET', `/api/v1/accounts/lookup?acct=mallory@${peer.domain}`)).body;
  await A.admin.social.ctx
    .db('follows')
    .insert({ account_id: bob.id, target_account_id: malloryOnA.id, created_at: new Date().toISOString() });

  const dm = note('for alice only', [`${A.url}/users/alice`]);
  const pub = note('for everyone', ['https://www.w3.org/ns/activitystreams#Public']);
  for (const activity of [dm, pub])
    assert.is((await peer.post(`${A.url}/inbox`, mallory, JSON.stringify(activity))).status, 202);
  const notification = (await mentions()).find((n) => n.status.uri === dm.object.id);
  const status = notification.status;
  assert.is(status.visibility, 'direct');
  assert.is(notification.filtered, true, "a stranger's private mention waits as a request");
  const requests = (await A.api(alice.token, 'GET', '/api/v1/notifications/requests')).body as any[];
  assert.is(requests.find((r) => r.account.acct === `mallory@${peer.domain}`)?.last_status.uri, dm.object.id);

  const bobHome = (
    (await A.api(bob.token, 'GET', '/api/v1/timelines/home?limit=40')).body as Array<{ uri: string }>
  ).map((s) => s.uri);
  assert.ok(bobHome.includes(pub.object.id), 'bob follows mallory: the public note is on his home');
  assert.not.ok(bobHome.includes(dm.object.id), 'the direct one is not');
  assert.is((await A.api(bob.token, 'GET', `/api/v1/statuses/${status.id}`)).status, 404);
  assert.is((await A.api(bob.token, 'GET', `/api/v1/statuses/${status.id}/context`)).status, 404);
  assert.is(
    (await A.api(alice.token, 'GET', `/api/v1/statuses/${status.id}`)).status,
    200,
    'alice, mentioned, sees it',
  );
  assert.is((await A.api(alice.token, 'POST', `/api/v1/statuses/${status.id}/reblog`)).status, 422);
});

test("a peer's custom emoji: a note's and an actor's Emoji tags that their text uses, with their images", async () => {
  const create = JSON.parse(mention(mallory, 'party :blobparty: and :notdeclared:'));
  create.object.tag = [
    ...create.object.tag,
    { type: 'Emoji', name: ':blobparty:', icon: { type: 'Image', url: `${peer.url}/emoji/blobparty.png` } },
    { type: 'Emoji', name: ':unused:', icon: { type: 'Image', url: `${peer.url}/emoji/unused.png` } },
    { type: 'Emoji', name: ':badurl:', icon: { type: 'Image', url: 'ftp://example.test/x.png' } },
    { type: 'Emoji', name: 'no colons', icon: { url: `${peer.url}/emoji/x.png` } },
  ];
  assert.is((await peer.post(`${A.url}/inbox`, mallory, JSON.stringify(create))).status, 202);
  const status = (await mentions()).find((n) => n.status.uri === create.object.id).status;
  assert.equal(status.emojis, [
    {
      shortcode: 'blobparty',
      url: `${peer.url}/emoji/blobparty.png`,
      static_url: `${peer.url}/emoji/blobparty.png`,
      visible_in_picker: false,
    },
  ]);

  const renamed = {
    ...peer.document(mallory),
    name: 'Mallory :blobfox:',
    tag: [{ type: 'Emoji', name: ':blobfox:', icon: { url: `${peer.url}/emoji/blobfox.png` } }],
  };
  const update = {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: `${mallory.uri}#updates/emoji`,
    type: 'Update',
    actor: mallory.uri,
    object: renamed,
  };
  assert.is((await peer.post(`${A.url}/inbox`, mallory, JSON.stringify(update))).status, 202);
  const account = (await A.api(alice.token, 'GET', `/api/v1/accounts/lookup?acct=mallory@${peer.domain}`)).body;
  assert.is(account.display_name, 'Mallory :blobfox:');
  assert.equal(
    account.emojis.map((e: { shortcode: string; url: string }) => [e.shortcode, e.url]),
    [['blobfox', `${peer.url}/emoji/blobfox.png`]],
  );
});

const mention9421 = (actor: FakeActor, text: string, claimedActor = actor.uri): string =>
  peer.mention(actor, text, `${A.url}/users/rhea`, claimedActor);

/** The texts of rhea's mentions (filtered ones too: strangers' direct mentions are held back). */
const mentionTexts = async (): Promise<string[]> =>
  ((await A.api(rhea.token, 'GET', '/api/v1/notifications?types[]=mention&include_filtered=true')).body as any[]).map(
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
  const answer = await peer.postRfc9421(`${A.url}/inbox`, rosa, mention9421(rosa, 'rfc9421 rsa'));
  assert.is(answer.status, 202, answer.text);
  await eventually('the mention', async () => (await mentionTexts()).some((c) => c.includes('rfc9421 rsa')));
});

test('ed25519, @authority with @path instead of @target-uri, and no alg (the key says which) are taken', async () => {
  const ed = await peer.postRfc9421(`${A.url}/users/rhea/inbox`, eddie, mention9421(eddie, 'rfc9421 ed25519'));
  assert.is(ed.status, 202, ed.text);
  const split = await peer.postRfc9421(`${A.url}/inbox`, rosa, mention9421(rosa, 'authority and path'), {
    components: ['@method', '@authority', '@path', 'content-digest'],
  });
  assert.is(split.status, 202, split.text);
  const noAlg = await peer.postRfc9421(`${A.url}/inbox`, eddie, mention9421(eddie, 'no alg given'), { alg: null });
  assert.is(noAlg.status, 202, noAlg.text);
  await eventually('the three mentions', async () => {
    const texts = await mentionTexts();
    return ['rfc9421 ed25519', 'authority and path', 'no alg given'].every((t) => texts.some((c) => c.includes(t)));
  });
});

test('an Ed25519 key beside the RSA one, as a Multikey (assertionMethod) or in additionalPublicKeys, signs too', async () => {
  const multikey = await peer.extraKey(rosa, 'multikey');
  const viaMultikey = await peer.postRfc9421(`${A.url}/inbox`, multikey, mention9421(multikey, 'multikey ed25519'));
  assert.is(viaMultikey.status, 202, viaMultikey.text);
  const misskey = await peer.extraKey(rosa, 'misskey');
  const viaMisskey = await peer.postRfc9421(`${A.url}/inbox`, misskey, mention9421(misskey, 'misskey ed25519'));
  assert.is(viaMisskey.status, 202, viaMisskey.text);
  await eventually('both mentions', async () => {
    const texts = await mentionTexts();
    return ['multikey ed25519', 'misskey ed25519'].every((t) => texts.some((c) => c.includes(t)));
  });
  // A key id the actor does not list is no key of its.
  const unlisted = { ...multikey, keyId: `${rosa.uri}#unlisted` };
  await refused(
    'an unlisted key id',
    peer.postRfc9421(`${A.url}/inbox`, unlisted, mention9421(unlisted, 'unlisted key')),
    'unlisted key',
    /unknown key/,
  );
});

test('a body other than the signed one (Content-Digest mismatch) is 401', async () => {
  await refused(
    'tampered',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention9421(rosa, 'signed 9421'), {
      sendInstead: mention9421(rosa, 'tampered 9421'),
    }),
    'tampered 9421',
    /Content-Digest does not match the body/,
  );
});

test('a Content-Digest that is wrong though signed, or of no known algorithm, is 401', async () => {
  const body = mention9421(rosa, 'wrong digest');
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
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention9421(rosa, 'stale 9421'), {
      created: new Date(Date.now() - 13 * 3600_000),
    }),
    'stale 9421',
    /created time outside acceptable time window/,
  );
  await refused(
    '2 hours ahead',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention9421(rosa, 'future 9421'), {
      created: new Date(Date.now() + 2 * 3600_000),
    }),
    'future 9421',
    /created time outside acceptable time window/,
  );
});

test('signed with another key than the keyid’s, or naming the wrong algorithm, is 401', async () => {
  await refused(
    'mallet’s key under rosa’s keyid',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention9421(rosa, 'wrong key 9421'), {
      signingKeyPem: mallet.privateKeyPem,
    }),
    'wrong key 9421',
    /rfc9421 signature does not verify/,
  );
  await refused(
    'ed25519 claimed for an RSA key',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention9421(rosa, 'wrong alg 9421'), { alg: 'ed25519' }),
    'wrong alg 9421',
    /rfc9421 signature does not verify/,
  );
  await refused(
    'an algorithm the box does not take',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention9421(rosa, 'hmac 9421'), { alg: 'hmac-sha256' }),
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
      peer.postRfc9421(`${A.url}/inbox`, rosa, mention9421(rosa, `cover ${what}`), { components: [...components] }),
      `cover ${what}`,
      /signature does not cover/,
    );
  }
});

test('an activity whose actor is not the signer is 401, as with cavage', async () => {
  await refused(
    'rosa signs, mallet claimed',
    peer.postRfc9421(`${A.url}/inbox`, rosa, mention9421(rosa, 'forged 9421', mallet.uri)),
    'forged 9421',
    /actor is not the signer/,
  );
});

test('a signed fetch with RFC 9421 reads what its signer may see: a followers-only post of a followed account', async () => {
  // rosa follows rhea (rhea is not locked): her followers-only post is then rosa's to fetch.
  const follow = JSON.stringify({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${rosa.uri}#follows/1`,
    type: 'Follow',
    actor: rosa.uri,
    object: `${A.url}/users/rhea`,
  });
  assert.is((await peer.postRfc9421(`${A.url}/inbox`, rosa, follow)).status, 202);
  await eventually('the follower', async () => {
    const me = (await A.api(rhea.token, 'GET', '/api/v1/accounts/verify_credentials')).body;
    return me.followers_count === 1;
  });
  const post = await A.api(rhea.token, 'POST', '/api/v1/statuses', { status: 'for followers', visibility: 'private' });
  const url = `${A.url}/users/rhea/statuses/${post.body.id}`;
  const signed = await peer.postRfc9421(url, rosa, '', { method: 'GET' });
  assert.is(signed.status, 200, signed.text);
  assert.match(signed.text, 'for followers');
  const stranger = await peer.postRfc9421(url, mallet, '', { method: 'GET' });
  assert.is(stranger.status, 404);
  const forgedKey = await peer.postRfc9421(url, rosa, '', { method: 'GET', signingKeyPem: mallet.privateKeyPem });
  assert.is(forgedKey.status, 404, 'a signature that does not verify reads as no one');
});

test("a peer's reply goes in through the statuses service as a local one: in its thread, stored and counted once however often it arrives", async () => {
  const original = await A.api(alice.token, 'POST', '/api/v1/statuses', { status: 'a thread to answer' });
  assert.is(original.status, 200);
  const malloryOnA = async () =>
    (await A.api(alice.token, 'GET', `/api/v1/accounts/lookup?acct=mallory@${peer.domain}`)).body;
  const before = (await malloryOnA()).statuses_count as number;
  counter += 1;
  const id = `${mallory.uri}/statuses/${counter}`;
  const create = JSON.stringify({
    '@context': 'https://www.w3.org/ns/activitystreams',
    id: `${id}/activity`,
    type: 'Create',
    actor: mallory.uri,
    object: {
      id,
      type: 'Note',
      attributedTo: mallory.uri,
      content: '<p>an answer</p>',
      inReplyTo: original.body.uri,
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      published: new Date().toISOString(),
    },
  });
  const answers = await Promise.all([1, 2, 3].map(() => peer.post(`${A.url}/inbox`, mallory, create)));
  for (const answer of answers) assert.is(answer.status, 202, answer.text);
  const context = (await A.api(alice.token, 'GET', `/api/v1/statuses/${original.body.id}/context`)).body;
  const replies = (context.descendants as Array<{ uri: string; in_reply_to_id: string }>).filter((s) => s.uri === id);
  assert.is(replies.length, 1, 'stored once');
  assert.is(replies[0].in_reply_to_id, original.body.id);
  assert.is((await A.api(alice.token, 'GET', `/api/v1/statuses/${original.body.id}`)).body.replies_count, 1);
  assert.is((await malloryOnA()).statuses_count, before + 1, 'its author counted once');
});

test.run();
