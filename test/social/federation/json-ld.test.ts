/**
 * JSON-LD that survives expansion: every kind of document the box serves or sends, expanded with
 * the `jsonld` processor (bundled contexts, no network), keeps every property and type, and the
 * extension terms (Hashtag, Emoji, PropertyValue, sensitive, focalPoint, …) expand to Mastodon's
 * IRIs. Two real daemons, each behind a recording tap that its base URL names: what one sends the
 * other is read from the wire, expanded whole, and accepted by the other. And one delivery per
 * server, read from the same wire: a public post that mentions a follower reaches the follower's
 * server once, at its shared inbox, though two of its accounts follow and one is mentioned.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, resolveAccount, startFederatedDaemon } from '../../helpers/federation.js';
import type { SocialHarness, TestAccount } from '../../helpers/social.js';
import { expandWhole } from '../../helpers/json-ld.js';
import { RecordingTap, type TapExchange } from '../../helpers/recording-tap.js';
import { freePort } from '../../helpers/ports.js';
import { form, png } from '../../helpers/media-files.js';
import * as activities from '../../../daemon/social/federation/objects/activities.js';

const AS = 'https://www.w3.org/ns/activitystreams#';
const TOOT = 'http://joinmastodon.org/ns#';
const SCHEMA = 'http://schema.org#';
const ACTIVITY_JSON = { accept: 'application/activity+json' };

let tapA: RecordingTap, tapB: RecordingTap;
let A: SocialHarness, B: SocialHarness;
let amy: TestAccount; // on A
let ben: TestAccount; // on B
let ona: TestAccount; // on A, for the one-delivery test
let finn: TestAccount, fay: TestAccount; // on B, for the one-delivery test

async function startBehindTap(): Promise<{ tap: RecordingTap; box: SocialHarness }> {
  const tap = await RecordingTap.start();
  const port = await freePort();
  tap.forwardTo(port);
  const box = await startFederatedDaemon({ port, env: { NESTBOX_BASE_URL: tap.url } });
  return { tap, box };
}

test.before(async () => {
  [{ tap: tapA, box: A }, { tap: tapB, box: B }] = await Promise.all([startBehindTap(), startBehindTap()]);
  amy = await A.account('amy');
  ben = await B.account('ben');
  ona = await A.account('ona');
  finn = await B.account('finn');
  fay = await B.account('fay');
});
test.after(async () => {
  await Promise.all([A?.stop(), B?.stop()]);
  await Promise.all([tapA?.stop(), tapB?.stop()]);
});

/** The activities delivered through a tap: inbox POSTs, parsed. */
const delivered = (tap: RecordingTap): Array<Record<string, any>> =>
  tap.exchanges
    .filter((x) => x.method === 'POST' && /\/inbox$/.test(x.path))
    .map((x) => JSON.parse(x.requestBody) as Record<string, any>);

const typesOf = (list: Array<Record<string, any>>) => list.map((a) => `${a.type}(${a.object?.type ?? 'link'})`);

async function assertExpandsWhole(what: string, document: object): Promise<Set<string>> {
  const { problems, iris } = await expandWhole(document);
  assert.equal(problems, [], `${what} expands whole: ${JSON.stringify(document)}`);
  return iris;
}

test('the checker itself sees terms lost: an undefined Hashtag and sensitive become blank nodes', async () => {
  const { problems } = await expandWhole({
    '@context': 'https://www.w3.org/ns/activitystreams',
    type: 'Note',
    sensitive: true,
    tag: [{ type: 'Hashtag', name: '#x' }],
  });
  assert.ok(problems.some((p) => p.includes('_:sensitive')));
  assert.ok(problems.some((p) => p.includes('_:Hashtag')));
});

test('what A and B send each other expands whole, and B takes it in', async () => {
  // A's custom emoji, used in the post and the profile.
  await A.admin.social.ctx.db('custom_emojis').insert({
    shortcode: 'blobcat',
    image_url: `${tapA.url}/emoji/blobcat.png`,
    static_url: `${tapA.url}/emoji/blobcat.png`,
    created_at: new Date().toISOString(),
  });
  const profile = await fetch(`${A.url}/api/v1/accounts/update_credentials`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${amy.token}` },
    body: form({
      display_name: 'Amy :blobcat:',
      discoverable: 'true',
      'fields_attributes[0][name]': 'Home',
      'fields_attributes[0][value]': 'the box',
      avatar: { data: await png(64, 64), type: 'image/png', name: 'me.png' },
    }),
  });
  assert.is(profile.status, 200, await profile.clone().text());

  const amyOnB = await resolveAccount(B, ben.token, `amy@${tapA.host}`);
  assert.is((await B.api(ben.token, 'POST', `/api/v1/accounts/${amyOnB.id}/follow`)).status, 200);
  await eventually('the follow accepted', async () => {
    const rel = (await B.api(ben.token, 'GET', `/api/v1/accounts/relationships?id[]=${amyOnB.id}`)).body[0];
    return rel.following;
  });
  // A profile change after the follow reaches B as an Update of the actor.
  await A.api(amy.token, 'PATCH', '/api/v1/accounts/update_credentials', { note: 'now with a bio' });

  const upload = await fetch(`${A.url}/api/v1/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${amy.token}` },
    body: form({
      file: { data: await png(), type: 'image/png', name: 'p.png' },
      description: 'a box',
      focus: '0.5,-0.25',
    }),
  });
  assert.is(upload.status, 200);
  const mediaId = ((await upload.json()) as { id: string }).id;
  const post = await A.api(amy.token, 'POST', '/api/v1/statuses', {
    status: `hello #nestbox @ben@${tapB.host} :blobcat:`,
    media_ids: [mediaId],
    sensitive: true,
    spoiler_text: 'a box',
    language: 'en',
  });
  assert.is(post.status, 200, JSON.stringify(post.body));
  const poll = await A.api(amy.token, 'POST', '/api/v1/statuses', {
    status: 'which one?',
    poll: { options: ['this', 'that'], expires_in: 3600 },
  });
  assert.is(poll.status, 200, JSON.stringify(poll.body));
  assert.is(
    (
      await A.api(amy.token, 'PUT', `/api/v1/statuses/${post.body.id}`, {
        status: `hello again #nestbox @ben@${tapB.host}`,
        media_ids: [mediaId],
      })
    ).status,
    200,
  );
  const doomed = await A.api(amy.token, 'POST', '/api/v1/statuses', { status: 'gone soon' });
  await eventually('the posts on B', async () => {
    const seen = (await B.api(ben.token, 'GET', `/api/v1/accounts/${amyOnB.id}/statuses`)).body;
    return Array.isArray(seen) && seen.length >= 3 && seen;
  });
  assert.is((await A.api(amy.token, 'DELETE', `/api/v1/statuses/${doomed.body.id}`)).status, 200);

  // B's side: a like, a boost, the like taken back, a vote.
  const onB = (await B.api(ben.token, 'GET', `/api/v1/accounts/${amyOnB.id}/statuses`)).body as any[];
  const hello = onB.find((s) => s.content.includes('hello'));
  const question = onB.find((s) => s.poll);
  assert.ok(hello && question, JSON.stringify(onB));
  // What A sent, B took in whole: the hashtag, the picture, the mention, the sensitive flag.
  assert.equal(
    hello.tags.map((t: { name: string }) => t.name),
    ['nestbox'],
  );
  assert.is(hello.sensitive, true);
  assert.is(hello.media_attachments.length, 1);
  assert.equal(hello.media_attachments[0].meta.focus, { x: 0.5, y: -0.25 });
  for (const [method, path, body] of [
    ['POST', `/api/v1/statuses/${hello.id}/favourite`, undefined],
    ['POST', `/api/v1/statuses/${hello.id}/reblog`, undefined],
    ['POST', `/api/v1/statuses/${hello.id}/unfavourite`, undefined],
    ['POST', `/api/v1/polls/${question.poll.id}/votes`, { choices: [0] }],
  ] as const) {
    const answer = await B.api(ben.token, method, path, body);
    assert.is(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
  }
  assert.is(
    (
      await A.api(
        amy.token,
        'POST',
        `/api/v1/accounts/${(await resolveAccount(A, amy.token, `ben@${tapB.host}`)).id}/block`,
      )
    ).status,
    200,
  );

  const toB = await eventually(
    'A’s activities at B',
    async () => {
      const list = delivered(tapB);
      const types = typesOf(list);
      return (
        ['Accept', 'Update(Person)', 'Create(Note)', 'Create(Question)', 'Update(Note)', 'Delete', 'Block'].every((t) =>
          types.some((seen) => seen.startsWith(t)),
        ) && list
      );
    },
    20_000,
  );
  const toA = await eventually(
    'B’s activities at A',
    async () => {
      const list = delivered(tapA);
      const types = typesOf(list);
      return (
        ['Follow', 'Like', 'Announce', 'Undo(Like)', 'Create(Note)'].every((t) =>
          types.some((seen) => seen.startsWith(t)),
        ) && list
      );
    },
    20_000,
  );

  const iris = new Set<string>();
  for (const activity of [...toB, ...toA]) {
    for (const iri of await assertExpandsWhole(`${activity.type} ${activity.id}`, activity)) iris.add(iri);
  }
  // And what each fetched of the other (actors, notes) through the taps.
  const fetched = (tap: RecordingTap) =>
    tap.exchanges.filter(
      (x: TapExchange) =>
        x.method === 'GET' && x.status === 200 && /activity\+json|ld\+json/.test(x.responseType ?? ''),
    );
  assert.ok(fetched(tapA).length > 0 && fetched(tapB).length > 0, 'each fetched documents of the other');
  for (const x of [...fetched(tapA), ...fetched(tapB)]) {
    for (const iri of await assertExpandsWhole(`GET ${x.path}`, JSON.parse(x.responseBody) as object)) iris.add(iri);
  }
  for (const iri of [
    `${AS}Hashtag`,
    `${AS}sensitive`,
    `${AS}manuallyApprovesFollowers`,
    `${AS}mediaType`,
    `${TOOT}Emoji`,
    `${TOOT}focalPoint`,
    `${TOOT}blurhash`,
    `${TOOT}discoverable`,
    `${TOOT}indexable`,
    `${TOOT}featured`,
    `${TOOT}featuredTags`,
    `${TOOT}votersCount`,
    `${SCHEMA}PropertyValue`,
    `${SCHEMA}value`,
    'http://ostatus.org#atomUri',
    'https://w3id.org/security#publicKeyPem',
  ]) {
    assert.ok(iris.has(iri), `${iri} among what was sent`);
  }
  // The actor's icon says what it is.
  const update = toB.find((a) => a.type === 'Update' && a.object?.type === 'Person');
  assert.is(update!.object.icon.mediaType, 'image/png');
  assert.equal(update!.object.attachment, [{ type: 'PropertyValue', name: 'Home', value: 'the box' }]);
});

test('every document A serves expands whole: actors, collections, featured, notes, a question, a tombstone', async () => {
  const get = async (path: string, status = 200) => {
    const response = await A.daemon.fetch(path, { headers: ACTIVITY_JSON });
    assert.is(response.status, status, path);
    return (await response.json()) as Record<string, any>;
  };
  await A.api(amy.token, 'POST', '/api/v1/featured_tags', { name: 'nestbox' });
  const statuses = (await A.api(amy.token, 'GET', `/api/v1/accounts/${amy.id}/statuses`)).body as any[];
  const withPoll = statuses.find((s) => s.poll);
  const plain = statuses.find((s) => !s.poll);
  assert.is((await A.api(amy.token, 'POST', `/api/v1/statuses/${plain.id}/pin`)).status, 200);
  const gone = await A.api(amy.token, 'POST', '/api/v1/statuses', { status: 'short-lived' });
  await A.api(amy.token, 'DELETE', `/api/v1/statuses/${gone.body.id}`);

  const documents: Array<[string, Record<string, any>]> = [];
  for (const path of [
    '/users/amy',
    '/actor',
    '/users/amy/followers',
    '/users/amy/following',
    '/users/amy/outbox',
    '/users/amy/collections/featured',
    '/users/amy/collections/tags',
    `/users/amy/statuses/${plain.id}`,
    `/users/amy/statuses/${withPoll.id}`,
  ])
    documents.push([path, await get(path)]);
  documents.push(['tombstone', await get(`/users/amy/statuses/${gone.body.id}`, 410)]);
  const byPath = Object.fromEntries(documents);
  assert.is(byPath['/users/amy/collections/featured'].orderedItems.length, 1);
  assert.is(byPath['/users/amy/collections/tags'].items[0].type, 'Hashtag');
  assert.is(byPath[`/users/amy/statuses/${withPoll.id}`].type, 'Question');
  assert.is(byPath['/users/amy'].icon.mediaType, 'image/png');
  for (const [path, document] of documents) await assertExpandsWhole(path, document);
});

test('activities sent in no exchange above expand whole too: Move, Undo of a Follow and a Block, a Reject, a Flag', async () => {
  const me = `${tapA.url}/users/amy`;
  const them = `${tapB.url}/users/ben`;
  for (const activity of [
    activities.move(me, them, Date.now()),
    activities.undo(me, activities.follow(me, them)),
    activities.undo(me, activities.block(me, them)),
    activities.answerFollow('Reject', me, them, `${them}#follows/1`),
    activities.flag(`${tapA.url}/actor`, `${tapA.url}/reports/1`, 'spam', [them, `${them}/statuses/1`]),
  ])
    await assertExpandsWhole(String(activity.type), activity);
});

/** The POSTs to an inbox that reached a box, as its tap saw them. */
const inboxPosts = (tap: RecordingTap): TapExchange[] =>
  tap.exchanges.filter((x) => x.method === 'POST' && /inbox$/.test(x.path));

test('a post to followers that mentions one of them arrives once, at the shared inbox', async () => {
  for (const follower of [finn, fay]) {
    const onaOnB = await resolveAccount(B, follower.token, `ona@${tapA.host}`);
    await B.api(follower.token, 'POST', `/api/v1/accounts/${onaOnB.id}/follow`);
    await eventually('the follow accepted', async () => {
      const rel = (await B.api(follower.token, 'GET', `/api/v1/accounts/relationships?id[]=${onaOnB.id}`)).body[0];
      return rel.following;
    });
  }
  await eventually('both followers known on A', async () => {
    const me = (await A.api(ona.token, 'GET', '/api/v1/accounts/verify_credentials')).body;
    return me.followers_count === 2;
  });
  const before = inboxPosts(tapB).length;
  const posted = await A.api(ona.token, 'POST', '/api/v1/statuses', { status: `hello @finn@${tapB.host}` });
  assert.is(posted.status, 200);
  await eventually('the mention on B', async () => {
    const got = (await B.api(finn.token, 'GET', '/api/v1/notifications?types[]=mention')).body;
    return got.length === 1;
  });
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const arrived = inboxPosts(tapB).slice(before);
  assert.equal(
    arrived.map((exchange) => exchange.path),
    ['/inbox'],
  );
});

test.run();
