/**
 * Two real daemons federating on loopback: discovery, follows (unlocked and locked), posts,
 * mentions, favourites, reblogs, profile updates, deletes, blocks and a move, each side's
 * notifications, statuses and relationships checked.
 *
 * Then the visibility rule across real daemons: a peer fetching or resolving a status is signed in
 * as no one on its author's server, so it gets public and unlisted statuses and nothing else; a
 * peer's actor acts (votes, favourites) only on statuses it may see.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SocialHarness, TestAccount } from '../../helpers/social.js';
import { domainOf, eventually, resolveAccount, startFederatedDaemon } from '../../helpers/federation.js';
import { form, png } from '../../helpers/media-files.js';
import { FakePeer, type FakeActor } from '../../helpers/fake-peer.js';
import { rawRows } from '../../../daemon/store/dialect.js';
import { openDaemonDatabase } from '../../helpers/daemon-database-open.js';

let A: SocialHarness;
let B: SocialHarness;
let alice: TestAccount; // on A
let carol: TestAccount; // on A, locked
let bob: TestAccount; // on B
let aliceOnB: any; // alice as B sees her
let bobOnA: any;
let vera: TestAccount; // on A, for the visibility tests
let ezra: TestAccount; // on B, for the visibility tests
let peer: FakePeer;
let mallory: FakeActor; // on the fake peer, following no one

test.before(async () => {
  [A, B, peer] = await Promise.all([startFederatedDaemon(), startFederatedDaemon(), FakePeer.start()]);
  mallory = peer.actor('mallory');
  alice = await A.account('alice');
  carol = await A.account('carol', { locked: true });
  bob = await B.account('bob');
  vera = await A.account('vera');
  ezra = await B.account('ezra');
});

test.after(async () => {
  await Promise.all([A?.stop(), B?.stop(), peer?.close()]);
});

const notifications = async (on: SocialHarness, who: TestAccount, type: string) =>
  (await on.api(who.token, 'GET', `/api/v1/notifications?types[]=${type}`)).body as any[];
const relationship = async (on: SocialHarness, who: TestAccount, id: string) =>
  (await on.api(who.token, 'GET', `/api/v1/accounts/relationships?id[]=${id}`)).body[0];

test('WebFinger, host-meta and NodeInfo describe the instance and its accounts', async () => {
  const finger = await A.daemon.json(`/.well-known/webfinger?resource=acct:alice@${domainOf(A)}`);
  assert.is(finger.status, 200);
  assert.is(finger.body.subject, `acct:alice@${domainOf(A)}`);
  const self = finger.body.links.find((l: any) => l.rel === 'self');
  assert.is(self.href, `${A.url}/users/alice`);
  assert.is((await A.daemon.json(`/.well-known/webfinger?resource=acct:nobody@${domainOf(A)}`)).status, 404);
  assert.is((await A.daemon.json(`/.well-known/webfinger?resource=acct:alice@elsewhere.example`)).status, 404);
  const hostMeta = await A.daemon.fetch('/.well-known/host-meta');
  assert.match(await hostMeta.text(), `${A.url}/.well-known/webfinger?resource={uri}`);
  const nodeinfo = await A.daemon.json('/.well-known/nodeinfo');
  const info = await A.daemon.json(new URL(nodeinfo.body.links[0].href).pathname);
  assert.is(info.body.version, '2.0');
  assert.equal(info.body.protocols, ['activitypub']);
  assert.ok(info.body.usage.users.total >= 2);
});

test('the actor document carries inbox, outbox, collections, shared inbox and a public key', async () => {
  const actor = await A.daemon.json('/users/alice', { headers: { accept: 'application/activity+json' } });
  assert.is(actor.status, 200);
  assert.match(actor.headers.get('content-type')!, 'application/activity+json');
  const doc = actor.body;
  assert.is(doc.id, `${A.url}/users/alice`);
  assert.is(doc.type, 'Person');
  assert.is(doc.inbox, `${doc.id}/inbox`);
  assert.is(doc.outbox, `${doc.id}/outbox`);
  assert.is(doc.followers, `${doc.id}/followers`);
  assert.is(doc.following, `${doc.id}/following`);
  assert.is(doc.featured, `${doc.id}/collections/featured`);
  assert.is(doc.endpoints.sharedInbox, `${A.url}/inbox`);
  assert.is(doc.publicKey.id, `${doc.id}#main-key`);
  assert.match(doc.publicKey.publicKeyPem, 'BEGIN PUBLIC KEY');
  const carolDoc = (await A.daemon.json('/users/carol')).body;
  assert.is(carolDoc.manuallyApprovesFollowers, true);

  assert.is(doc.featuredTags, `${doc.id}/collections/tags`);
  assert.is((await A.api(alice.token, 'POST', '/api/v1/featured_tags', { name: 'Gardening' })).status, 200);
  const tags = (
    await A.daemon.json('/users/alice/collections/tags', { headers: { accept: 'application/activity+json' } })
  ).body;
  assert.equal([tags.type, tags.totalItems], ['Collection', 1]);
  assert.equal(tags.items, [{ type: 'Hashtag', href: `${A.url}/tags/gardening`, name: '#Gardening' }]);
});

test('search resolve finds a remote account by its address with a port', async () => {
  aliceOnB = await resolveAccount(B, bob.token, `@alice@${domainOf(A)}`);
  assert.is(aliceOnB.acct, `alice@${domainOf(A)}`);
  assert.is(aliceOnB.uri, `${A.url}/users/alice`);
  const unauthenticated = await B.api(
    null,
    'GET',
    `/api/v2/search?resolve=true&q=${encodeURIComponent(`alice@${domainOf(A)}`)}`,
  );
  assert.is(unauthenticated.status, 401);
});

test('follow of an unlocked remote account: requested, then accepted; follow notification on the target side', async () => {
  const answer = await B.api(bob.token, 'POST', `/api/v1/accounts/${aliceOnB.id}/follow`);
  assert.is(answer.status, 200);
  await eventually('the Accept', async () => (await relationship(B, bob, aliceOnB.id)).following === true);
  const rel = await relationship(B, bob, aliceOnB.id);
  assert.is(rel.requested, false);
  const follows = await notifications(A, alice, 'follow');
  assert.is(follows.length, 1);
  assert.is(follows[0].account.acct, `bob@${domainOf(B)}`);
  bobOnA = follows[0].account;
  assert.is((await A.api(alice.token, 'GET', `/api/v1/accounts/${alice.id}`)).body.followers_count, 1);
  assert.is((await relationship(A, alice, bobOnA.id)).followed_by, true);
});

test('follow of a locked remote account: a request until the owner authorizes it', async () => {
  const carolOnB = await resolveAccount(B, bob.token, `carol@${domainOf(A)}`);
  assert.is(carolOnB.locked, true);
  await B.api(bob.token, 'POST', `/api/v1/accounts/${carolOnB.id}/follow`);
  const requests = await eventually('the follow request on A', async () => {
    const list = (await A.api(carol.token, 'GET', '/api/v1/follow_requests')).body as any[];
    return list.length ? list : null;
  });
  assert.is(requests[0].acct, `bob@${domainOf(B)}`);
  // The notification is stored just after the request, as Mastodon's notification worker does.
  const notified = await eventually('the follow_request notification', async () => {
    const list = await notifications(A, carol, 'follow_request');
    return list.length ? list : null;
  });
  assert.is(notified.length, 1);
  assert.is(notified[0].account.acct, `bob@${domainOf(B)}`);
  assert.is((await relationship(B, bob, carolOnB.id)).requested, true);
  assert.is((await relationship(B, bob, carolOnB.id)).following, false);
  const authorized = await A.api(carol.token, 'POST', `/api/v1/follow_requests/${requests[0].id}/authorize`);
  assert.is(authorized.status, 200);
  await eventually(
    'the Accept of the locked account',
    async () => (await relationship(B, bob, carolOnB.id)).following === true,
  );
});

let postOnB: any;

test('a public post reaches the follower’s server; a mention notifies the mentioned account', async () => {
  const post = await A.api(alice.token, 'POST', '/api/v1/statuses', { status: 'Hello from A', visibility: 'public' });
  assert.is(post.status, 200);
  postOnB = await eventually('the post on B', async () => {
    const list = (await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}/statuses`)).body as any[];
    return list.find((s) => s.uri === post.body.uri);
  });
  assert.is(postOnB.content, post.body.content);
  assert.is(postOnB.account.acct, `alice@${domainOf(A)}`);
  assert.is(postOnB.visibility, 'public');

  const mention = await A.api(alice.token, 'POST', '/api/v1/statuses', {
    status: `@bob@${domainOf(B)} are you there?`,
  });
  assert.is(mention.status, 200);
  assert.is(mention.body.mentions[0].acct, `bob@${domainOf(B)}`);
  const mentioned = await eventually(
    'the mention notification on B',
    async () => (await notifications(B, bob, 'mention'))[0],
  );
  assert.is(mentioned.account.acct, `alice@${domainOf(A)}`);
  assert.is(mentioned.status.uri, mention.body.uri);
  assert.is(mentioned.status.mentions[0].id, bob.id);
});

test("hashtags travel as Hashtag tags: the post is on the tag timeline of the follower's server", async () => {
  const post = await A.api(alice.token, 'POST', '/api/v1/statuses', { status: 'Nesting season #BirdBox #nestbox' });
  assert.is(post.status, 200);
  const note = (await (await fetch(post.body.uri, { headers: { accept: 'application/activity+json' } })).json()) as {
    tag: Array<{ type: string; name: string; href: string }>;
  };
  assert.equal(
    note.tag
      .filter((t) => t.type === 'Hashtag')
      .map((t) => [t.name, t.href])
      .sort(),
    [
      ['#BirdBox', `${A.url}/tags/birdbox`],
      ['#nestbox', `${A.url}/tags/nestbox`],
    ],
  );
  const onB = await eventually('the tagged post on B', async () => {
    const list = (await B.api(bob.token, 'GET', '/api/v1/timelines/tag/birdbox')).body as Array<{ uri: string }>;
    return list.find((s) => s.uri === post.body.uri);
  });
  assert.equal(
    (onB as unknown as { tags: Array<{ name: string }> }).tags.map((t) => t.name),
    ['birdbox', 'nestbox'],
  );
});

test("custom emoji travel as Emoji tags: the follower's server shows them with their images", async () => {
  const image = `${A.url}/emoji/nestbird.png`;
  await A.admin.social.ctx.db.raw(
    `INSERT INTO custom_emojis (shortcode, image_url, static_url, created_at) VALUES ('nestbird', ?, ?, ?)`,
    [image, image, new Date().toISOString()],
  );
  const post = await A.api(alice.token, 'POST', '/api/v1/statuses', { status: 'morning :nestbird:' });
  assert.is(post.status, 200);
  const onB = await eventually('the post with emoji on B', async () => {
    const list = (await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}/statuses`)).body as Array<{
      uri: string;
    }>;
    return list.find((s) => s.uri === post.body.uri);
  });
  assert.equal(
    (onB as unknown as { emojis: Array<{ shortcode: string; url: string }> }).emojis.map((e) => [e.shortcode, e.url]),
    [['nestbird', image]],
  );

  // In a profile too: the actor document carries it, and the follower's server shows it.
  assert.is(
    (await A.api(alice.token, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Alice :nestbird:' }))
      .status,
    200,
  );
  const own = (await A.api(alice.token, 'GET', '/api/v1/accounts/verify_credentials')).body;
  assert.equal(
    own.emojis.map((e: { shortcode: string }) => e.shortcode),
    ['nestbird'],
  );
  const actor = (await (
    await fetch(`${A.url}/users/alice`, { headers: { accept: 'application/activity+json' } })
  ).json()) as { tag: Array<{ type: string; name: string }> };
  assert.equal(
    actor.tag.map((t) => [t.type, t.name]),
    [['Emoji', ':nestbird:']],
  );
  await eventually('the profile emoji on B', async () => {
    const account = (await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}`)).body as {
      display_name: string;
      emojis: Array<{ shortcode: string }>;
    };
    return account.display_name === 'Alice :nestbird:' && account.emojis.some((e) => e.shortcode === 'nestbird');
  });
});

test("a direct status reaches only the mentioned account's server and its conversation list", async () => {
  const dm = await A.api(alice.token, 'POST', '/api/v1/statuses', {
    status: `@bob@${domainOf(B)} only for you`,
    visibility: 'direct',
  });
  assert.is(dm.status, 200);
  const conversation = await eventually('the conversation on B', async () => {
    const list = (await B.api(bob.token, 'GET', '/api/v1/conversations')).body as Array<{
      last_status: { uri: string };
    }>;
    return list.find((c) => c.last_status.uri === dm.body.uri);
  });
  assert.is((conversation as unknown as { unread: boolean }).unread, true);
  assert.is((conversation as unknown as { last_status: { visibility: string } }).last_status.visibility, 'direct');
});

test('a post with an image arrives with its media referenced by remote_url, type, description, blurhash and meta', async () => {
  const uploaded = await fetch(`${A.url}/api/v2/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${alice.token}` },
    body: form({
      file: { data: await png(320, 160), type: 'image/png', name: 'sky.png' },
      description: 'A blue sky',
      focus: '0.5,-0.25',
    }),
  });
  assert.ok([200, 202].includes(uploaded.status), String(uploaded.status));
  const mediaId = ((await uploaded.json()) as any).id as string;
  const local = await eventually('the upload processed', async () => {
    const res = await A.api(alice.token, 'GET', `/api/v1/media/${mediaId}`);
    return res.status === 200 ? res.body : null;
  });
  const post = await A.api(alice.token, 'POST', '/api/v1/statuses', {
    status: 'Look at this sky',
    media_ids: [mediaId],
  });
  assert.is(post.status, 200, JSON.stringify(post.body));

  const note = (
    await A.daemon.json(new URL(post.body.uri).pathname, { headers: { accept: 'application/activity+json' } })
  ).body;
  assert.is(note.attachment.length, 1);
  assert.equal(note.attachment[0], {
    type: 'Document',
    mediaType: 'image/png',
    url: local.url,
    name: 'A blue sky',
    blurhash: local.blurhash,
    width: 320,
    height: 160,
    focalPoint: [0.5, -0.25],
  });

  const onB = await eventually('the post with media on B', async () => {
    const list = (await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}/statuses`)).body as any[];
    return list.find((s) => s.uri === post.body.uri);
  });
  assert.is(onB.media_attachments.length, 1);
  assert.is(onB.media_attachments[0].remote_url, local.url);
  // B keeps its own copy: apps then load the picture from B, not from A.
  const media = await eventually('the copy on B', async () => {
    const status = (await B.api(bob.token, 'GET', `/api/v1/statuses/${onB.id}`)).body;
    return status.media_attachments[0].url.startsWith(B.url) ? status.media_attachments[0] : null;
  });
  assert.is(media.type, 'image');
  assert.is(media.remote_url, local.url, "the peer's address stays known");
  assert.match(media.preview_url, B.url);
  assert.is(media.description, 'A blue sky');
  assert.is(media.blurhash, local.blurhash, "the peer's blurhash is kept");
  assert.equal(media.meta.original, { width: 320, height: 160, size: '320x160', aspect: 2 });
  assert.equal(media.meta.focus, { x: 0.5, y: -0.25 });
  assert.is.not(media.id, mediaId);
  const onlyMedia = (await B.api(bob.token, 'GET', '/api/v1/timelines/public?remote=true&only_media=true'))
    .body as any[];
  assert.equal(
    onlyMedia.map((s) => s.uri),
    [post.body.uri],
  );
  for (const url of [media.url, media.preview_url, media.remote_url]) {
    const file = await fetch(url);
    assert.is(file.status, 200, url);
    assert.match(file.headers.get('content-type') ?? '', /^image\//);
  }

  // After the week a copy is kept, B points at A's file again and the copy is gone.
  await B.admin.social.ctx
    .db('media_attachments')
    .where({ id: media.id })
    .update({ updated_at: '2020-01-01T00:00:00.000Z' });
  assert.is(await B.admin.social.services.media.uncacheRemote(new Date().toISOString()), 1);
  const uncached = (await B.api(bob.token, 'GET', `/api/v1/statuses/${onB.id}`)).body.media_attachments[0];
  assert.equal([uncached.url, uncached.preview_url, uncached.remote_url], [local.url, local.url, local.url]);
  assert.is((await fetch(media.url)).status, 404);
});

test('a mention of an account this server has never seen is looked up by WebFinger and delivered', async () => {
  const frank = await B.account('frank');
  const post = await A.api(alice.token, 'POST', '/api/v1/statuses', { status: `hello @frank@${domainOf(B)}` });
  assert.is(post.body.mentions[0]?.acct, `frank@${domainOf(B)}`);
  const mentioned = await eventually(
    'the mention of frank on B',
    async () => (await notifications(B, frank, 'mention'))[0],
  );
  assert.is(mentioned.status.uri, post.body.uri);
});

test('search resolve fetches a remote status by its URL or its URI', async () => {
  const erin = await B.account('resolver');
  const post = await A.api(alice.token, 'POST', '/api/v1/statuses', {
    status: 'find me by my address',
    visibility: 'unlisted',
  });
  for (const address of [post.body.url, post.body.uri]) {
    const found = await B.api(
      erin.token,
      'GET',
      `/api/v2/search?resolve=true&type=statuses&q=${encodeURIComponent(address)}`,
    );
    assert.is(found.status, 200);
    assert.is(found.body.statuses.length, 1, address);
    assert.is(found.body.statuses[0].uri, post.body.uri);
    assert.is(found.body.statuses[0].visibility, 'unlisted');
  }
  const missing = await B.api(
    erin.token,
    'GET',
    `/api/v2/search?resolve=true&q=${encodeURIComponent(`${A.url}/users/alice/statuses/1`)}`,
  );
  assert.equal(missing.body.statuses, []);
});

/** Rows of a daemon's own database, read beside it (on SQLite, WAL lets a reader in while it writes). */
async function rowsOf(on: SocialHarness, sql: string, params: unknown[]): Promise<any[]> {
  const db = openDaemonDatabase(on.daemon.dataDir);
  try {
    return await rawRows(db, sql, params);
  } finally {
    await db.destroy();
  }
}

test("a report forwarded to the reported account's server arrives as a Flag from the instance actor", async () => {
  const posted = await B.api(bob.token, 'POST', '/api/v1/statuses', { status: 'buy my stuff', visibility: 'public' });
  const found = await A.api(
    alice.token,
    'GET',
    `/api/v2/search?resolve=true&type=statuses&q=${encodeURIComponent(posted.body.uri)}`,
  );
  const seenOnA = found.body.statuses[0];
  const report = await A.api(alice.token, 'POST', '/api/v1/reports', {
    account_id: seenOnA.account.id,
    status_ids: [seenOnA.id],
    comment: 'spam from over there',
    forward: true,
  });
  assert.is(report.status, 200);
  assert.is(report.body.forwarded, true);
  const rows = await eventually('the Flag on the reported server', () =>
    rowsOf(
      B,
      `SELECT r.comment, CAST(r.target_account_id AS TEXT) AS target, a.uri AS reporter,
        CAST(rs.status_id AS TEXT) AS status
      FROM reports r JOIN accounts a ON a.id = r.account_id JOIN report_statuses rs ON rs.report_id = r.id
      WHERE r.comment = 'spam from over there'`,
      [],
    ).then((rows) => (rows.length ? rows : null)),
  );
  assert.is(rows.length, 1, 'one report naming one status');
  const [received] = rows;
  assert.is(received.target, bob.id);
  assert.is(received.status, posted.body.id);
  assert.is(received.reporter, `${A.url}/actor`, 'sent by the instance actor: the reporter stays unknown there');
  // Each side takes the other's instance actor as the signer of its fetches and of the Flag.
  for (const side of [A, B])
    assert.not.ok(
      side.daemon.logs.some((line) => line.msg === 'refused a signed request'),
      'no signed request was refused',
    );
});

test('favourite and reblog of a remote post notify its author', async () => {
  assert.is((await B.api(bob.token, 'POST', `/api/v1/statuses/${postOnB.id}/favourite`)).status, 200);
  const fav = await eventually('the favourite on A', async () => (await notifications(A, alice, 'favourite'))[0]);
  assert.is(fav.account.acct, `bob@${domainOf(B)}`);
  assert.is(fav.status.favourites_count, 1);

  assert.is((await B.api(bob.token, 'POST', `/api/v1/statuses/${postOnB.id}/reblog`)).status, 200);
  const reblog = await eventually('the reblog on A', async () => (await notifications(A, alice, 'reblog'))[0]);
  assert.is(reblog.account.acct, `bob@${domainOf(B)}`);
  assert.is(reblog.status.reblogs_count, 1);

  assert.is((await B.api(bob.token, 'POST', `/api/v1/statuses/${postOnB.id}/unfavourite`)).status, 200);
  await eventually('the Undo of the Like', async () => (await notifications(A, alice, 'favourite')).length === 0);
  assert.is((await B.api(bob.token, 'POST', `/api/v1/statuses/${postOnB.id}/unreblog`)).status, 200);
  await eventually('the Undo of the Announce', async () => (await notifications(A, alice, 'reblog')).length === 0);
});

test('polls: a Question arrives with its options; votes travel to the author as Notes, counts come back as Update', async () => {
  const posted = await A.api(alice.token, 'POST', '/api/v1/statuses', {
    status: 'Cats or dogs?',
    poll: { options: ['cats', 'dogs'], expires_in: 86_400 },
  });
  assert.is(posted.status, 200, JSON.stringify(posted.body));
  const pollOnB = async () =>
    (await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}/statuses`)).body.find(
      (s: any) => s.uri === posted.body.uri,
    )?.poll;
  const arrived = await eventually('the poll on B', pollOnB);
  assert.equal(arrived.options, [
    { title: 'cats', votes_count: 0 },
    { title: 'dogs', votes_count: 0 },
  ]);
  assert.is(arrived.multiple, false);
  assert.is(arrived.expires_at.slice(0, 19), posted.body.poll.expires_at.slice(0, 19));
  assert.is(arrived.voted, false);

  // A local vote on A: its new count goes out at once.
  assert.is(
    (await A.api(carol.token, 'POST', `/api/v1/polls/${posted.body.poll.id}/votes`, { choices: [0] })).status,
    200,
  );
  await eventually('the counts on B', async () => (await pollOnB()).options[0].votes_count === 1);
  assert.is((await pollOnB()).voters_count, 1);
  const statusOnB = (await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}/statuses`)).body.find(
    (s: any) => s.uri === posted.body.uri,
  );
  assert.is(statusOnB.edited_at, null, 'new counts are no edit');

  // bob's vote on B reaches A as a Note answering the Question, never as a status.
  const statusesOnA = (await A.api(alice.token, 'GET', `/api/v1/accounts/${alice.id}`)).body.statuses_count;
  const voted = await B.api(bob.token, 'POST', `/api/v1/polls/${arrived.id}/votes`, { choices: [1] });
  assert.is(voted.status, 200, JSON.stringify(voted.body));
  assert.equal(voted.body.own_votes, [1]);
  assert.equal(
    voted.body.options.map((o: any) => o.votes_count),
    [1, 1],
  );
  const onA = await eventually('the vote on A', async () => {
    const poll = (await A.api(alice.token, 'GET', `/api/v1/polls/${posted.body.poll.id}`)).body;
    return poll.votes_count === 2 ? poll : null;
  });
  assert.equal(
    onA.options.map((o: any) => o.votes_count),
    [1, 1],
  );
  assert.is(onA.voters_count, 2);
  assert.is((await A.api(alice.token, 'GET', `/api/v1/accounts/${alice.id}`)).body.statuses_count, statusesOnA);
  assert.equal(await notifications(A, alice, 'mention'), []);
  assert.is(
    (await B.api(bob.token, 'POST', `/api/v1/polls/${arrived.id}/votes`, { choices: [0] })).status,
    422,
    'once',
  );
});

test('a profile change is published as Update and seen on the follower’s server', async () => {
  const changed = await A.api(alice.token, 'PATCH', '/api/v1/accounts/update_credentials', {
    display_name: 'Alice of A',
    note: 'new bio',
  });
  assert.is(changed.status, 200);
  await eventually(
    'the Update on B',
    async () => (await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}`)).body.display_name === 'Alice of A',
  );
  assert.match((await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}`)).body.note, 'new bio');
});

test("a peer's avatar is copied to the follower's server, and replaced when it changes", async () => {
  const setAvatar = async (width: number) => {
    const body = new FormData();
    body.set('avatar', new Blob([await png(width, width)], { type: 'image/png' }), 'me.png');
    const res = await fetch(`${A.url}/api/v1/accounts/update_credentials`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${alice.token}` },
      body,
    });
    assert.is(res.status, 200);
    return ((await res.json()) as { avatar: string }).avatar;
  };
  const copyOnB = async (notOf?: string) =>
    eventually('the avatar copy on B', async () => {
      const avatar = (await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}`)).body.avatar as string;
      return avatar.startsWith(`${B.url}/system/accounts/avatars/`) && avatar !== notOf ? avatar : null;
    });
  const first = await setAvatar(40);
  const copy = await copyOnB();
  const served = await fetch(copy);
  assert.is(served.status, 200);
  const [copied, original] = [
    Buffer.from(await served.arrayBuffer()),
    Buffer.from(await (await fetch(first)).arrayBuffer()),
  ];
  assert.is(copied.length, original.length, `same size: ${copy} ${first}`);
  assert.is(Buffer.compare(copied, original), 0, 'the same picture');

  await setAvatar(50);
  const second = await copyOnB(copy);
  assert.is.not(second, copy);
  assert.is((await fetch(copy)).status, 404, 'the replaced copy is gone');
  // An Update that leaves the picture as it was keeps the copy.
  await A.api(alice.token, 'PATCH', '/api/v1/accounts/update_credentials', { note: 'same face' });
  await eventually('the note on B', async () =>
    (await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}`)).body.note.includes('same face'),
  );
  assert.is((await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}`)).body.avatar, second);
});

test('an edited post is published as Update and edited on the follower’s server', async () => {
  const own = (await A.api(alice.token, 'GET', `/api/v1/accounts/${alice.id}/statuses`)).body.find(
    (s: any) => s.uri === postOnB.uri,
  );
  const edited = await A.api(alice.token, 'PUT', `/api/v1/statuses/${own.id}`, {
    status: 'Hello from A, edited',
    spoiler_text: 'cw',
  });
  assert.is(edited.status, 200);
  assert.ok(edited.body.edited_at);
  const onB = await eventually('the edit on B', async () => {
    const status = (await B.api(bob.token, 'GET', `/api/v1/statuses/${postOnB.id}`)).body;
    return status.content.includes('edited') ? status : null;
  });
  assert.is(onB.spoiler_text, 'cw');
  assert.ok(onB.edited_at);
  const history = (await B.api(bob.token, 'GET', `/api/v1/statuses/${postOnB.id}/history`)).body;
  assert.is(history.length, 2, 'the original and the edit, kept on B too');
  assert.not.match(history[0].content, 'edited');
  assert.match(history[1].content, 'edited');
  assert.is(history[1].spoiler_text, 'cw');
  assert.is((await B.api(bob.token, 'PUT', `/api/v1/statuses/${postOnB.id}`, { status: 'not mine' })).status, 404);
});

test('a deleted post disappears on the follower’s server', async () => {
  const gone = await A.api(
    alice.token,
    'DELETE',
    `/api/v1/statuses/${(await A.api(alice.token, 'GET', `/api/v1/accounts/${alice.id}/statuses`)).body.find((s: any) => s.uri === postOnB.uri).id}`,
  );
  assert.is(gone.status, 200);
  await eventually(
    'the Delete on B',
    async () => (await B.api(bob.token, 'GET', `/api/v1/statuses/${postOnB.id}`)).status === 404,
  );
});

test('a block is delivered: the follow ends on both sides and the blocked side sees blocked_by', async () => {
  assert.is((await A.api(alice.token, 'POST', `/api/v1/accounts/${bobOnA.id}/block`)).status, 200);
  await eventually('the Block on B', async () => (await relationship(B, bob, aliceOnB.id)).blocked_by === true);
  const rel = await relationship(B, bob, aliceOnB.id);
  assert.is(rel.following, false);
  assert.is((await A.api(alice.token, 'GET', `/api/v1/accounts/${alice.id}`)).body.followers_count, 0);
  assert.is((await A.api(alice.token, 'POST', `/api/v1/accounts/${bobOnA.id}/unblock`)).status, 200);
  await eventually(
    'the Undo of the Block on B',
    async () => (await relationship(B, bob, aliceOnB.id)).blocked_by === false,
  );
});

test('unfollow is delivered as Undo of the Follow', async () => {
  const carolOnB = await resolveAccount(B, bob.token, `carol@${domainOf(A)}`);
  assert.is((await B.api(bob.token, 'POST', `/api/v1/accounts/${carolOnB.id}/unfollow`)).status, 200);
  await eventually('the Undo on A', async () => (await relationship(A, carol, bobOnA.id)).followed_by === false);
});

test('a rejected follow request is withdrawn on the requester’s server', async () => {
  const carolOnB = await resolveAccount(B, bob.token, `carol@${domainOf(A)}`);
  await B.api(bob.token, 'POST', `/api/v1/accounts/${carolOnB.id}/follow`);
  const request = await eventually(
    'the new request on A',
    async () => ((await A.api(carol.token, 'GET', '/api/v1/follow_requests')).body as any[])[0],
  );
  assert.is((await A.api(carol.token, 'POST', `/api/v1/follow_requests/${request.id}/reject`)).status, 200);
  await eventually('the Reject on B', async () => (await relationship(B, bob, carolOnB.id)).requested === false);
  assert.is((await relationship(B, bob, carolOnB.id)).following, false);
});

test('a move: the moved account’s followers follow the new account', async () => {
  const dave = await A.account('dave');
  const dave2 = await B.account('dave2');
  const erin = await B.account('erin');
  const daveOnB = await resolveAccount(B, erin.token, `dave@${domainOf(A)}`);
  await B.api(erin.token, 'POST', `/api/v1/accounts/${daveOnB.id}/follow`);
  await eventually('erin follows dave', async () => (await relationship(B, erin, daveOnB.id)).following === true);
  const alias = await B.api(dave2.token, 'POST', '/api/v1/accounts/aliases', { acct: `dave@${domainOf(A)}` });
  assert.is(alias.status, 200, JSON.stringify(alias.body));
  const moved = await A.api(dave.token, 'POST', '/api/v1/accounts/migration', { acct: `dave2@${domainOf(B)}` });
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  await eventually('erin follows dave2', async () => (await relationship(B, erin, dave2.id)).following === true);
  assert.is((await relationship(B, erin, daveOnB.id)).following, false);
  assert.is((await B.api(erin.token, 'GET', `/api/v1/accounts/${daveOnB.id}`)).body.moved?.id, dave2.id);
  const daveOnA = (await A.api(alice.token, 'GET', `/api/v1/accounts/${dave.id}`)).body;
  assert.is(daveOnA.moved?.acct, `dave2@${domainOf(B)}`);
  assert.is(daveOnA.moved.moved, undefined);
  assert.is(
    (await A.api(alice.token, 'GET', `/api/v1/accounts/lookup?acct=dave`)).body.moved?.acct,
    `dave2@${domainOf(B)}`,
  );
  assert.is((await A.api(alice.token, 'GET', `/api/v1/accounts/${alice.id}`)).body.moved, undefined);
  const refused = await A.api(alice.token, 'POST', '/api/v1/accounts/migration', { acct: `bob@${domainOf(B)}` });
  assert.is(refused.status, 422);
});

test('a peer resolving a status by URL or URI gets public and unlisted ones only', async () => {
  for (const visibility of ['public', 'unlisted', 'private', 'direct']) {
    const word = `federated${visibility}${Math.random().toString(36).slice(2, 8)}`;
    const posted = await A.api(vera.token, 'POST', '/api/v1/statuses', {
      status: `${word} for no one on B`,
      visibility,
    });
    assert.is(posted.status, 200, JSON.stringify(posted.body));
    const open = visibility === 'public' || visibility === 'unlisted';
    for (const address of [posted.body.url, posted.body.uri]) {
      const found = await B.api(
        ezra.token,
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
    const posted = await A.api(vera.token, 'POST', '/api/v1/statuses', {
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
      to: [`${A.url}/users/vera`],
    };
    await send({ id: `${mallory.uri}#creates/${n}`, type: 'Create', object: vote });
    await send({ id: `${mallory.uri}#likes/${n}`, type: 'Like', object: posted.body.uri });
    const seen = (await A.api(vera.token, 'GET', `/api/v1/statuses/${posted.body.id}`)).body;
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
    object: `${A.url}/users/vera`,
  };
  assert.is((await peer.post(`${A.url}/users/vera/inbox`, follower, JSON.stringify(follow))).status, 202);
  const word = `signedfetch${Math.random().toString(36).slice(2, 8)}`;
  const posted = await A.api(vera.token, 'POST', '/api/v1/statuses', {
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
  const posted = await A.api(vera.token, 'POST', '/api/v1/statuses', { status: 'public, but not for that server' });
  assert.is(posted.status, 200);
  assert.is((await peer.get(posted.body.uri, fetcher)).status, 200, 'seen before the block');
  const block = await A.api(vera.token, 'POST', '/api/v1/domain_blocks', { domain: peer.domain });
  assert.is(block.status, 200);
  try {
    const blocked = await peer.get(posted.body.uri, fetcher);
    assert.is(blocked.status, 404);
    assert.not.ok(blocked.text.includes('not for that server'));
    const fromB = await B.api(
      ezra.token,
      'GET',
      `/api/v2/search?q=${encodeURIComponent(posted.body.uri)}&resolve=true`,
    );
    assert.is(fromB.body.statuses.length, 1, 'another server still resolves it');
  } finally {
    await A.api(vera.token, 'DELETE', '/api/v1/domain_blocks', { domain: peer.domain });
  }
});

test.run();
