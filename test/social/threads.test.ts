/**
 * Threads and the reads real apps make around a status: its context (ancestors and descendants,
 * depth first, self-replies first, as each viewer may see them), its source for editing, its edit
 * history, the account's preferences, and trends (off on the box, so empty).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { uploadPng } from '../helpers/media-files.js';

let h: SocialHarness;
let ann: TestAccount, ben: TestAccount, cat: TestAccount, dan: TestAccount;

async function post(who: TestAccount, status: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await h.api(who.token, 'POST', '/api/v1/statuses', { status, ...extra });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

const reply = (who: TestAccount, to: string, status: string, extra: Record<string, unknown> = {}) =>
  post(who, status, { in_reply_to_id: to, ...extra });

async function context(id: string, who: TestAccount | null): Promise<{ ancestors: string[]; descendants: string[] }> {
  const res = await h.api(who?.token ?? null, 'GET', `/api/v1/statuses/${id}/context`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  const ids = (list: Array<{ id: string }>) => list.map((status) => status.id);
  return { ancestors: ids(res.body.ancestors), descendants: ids(res.body.descendants) };
}

test.before(async () => {
  h = await startSocialDaemon();
  [ann, ben, cat, dan] = await Promise.all(['ann', 'ben', 'cat', 'dan'].map((name) => h.account(name)));
});
test.after(async () => {
  await h?.stop();
});

test('context: ancestors from the start of the thread, descendants depth first with self-replies first', async () => {
  const root = await post(ann, 'root');
  const b = await reply(ben, root, 'ben answers');
  const c = await reply(ann, b, 'ann answers ben');
  const d = await reply(cat, root, 'cat answers');
  const e = await reply(ann, root, 'ann adds to her own post');
  const f = await reply(ben, c, 'ben again');

  assert.equal(await context(root, dan), { ancestors: [], descendants: [e, b, c, f, d] });
  assert.equal(await context(c, dan), { ancestors: [root, b], descendants: [f] });
  assert.equal(await context(f, null), { ancestors: [root, b, c], descendants: [] });

  const res = await h.api(dan.token, 'GET', `/api/v1/statuses/${c}/context`);
  assert.is(res.body.ancestors[1].content, '<p>ben answers</p>');
  assert.is(res.body.ancestors[1].account.id, ben.id);
  assert.is(res.body.descendants[0].in_reply_to_id, c);
});

test('context: each viewer sees what they may; replies under a hidden status still show', async () => {
  const root = await post(ann, 'thread with a private part');
  await h.api(ann.token, 'POST', `/api/v1/accounts/${cat.id}/follow`);
  const hidden = await reply(cat, root, 'for my followers only', { visibility: 'private' });
  const under = await reply(ann, hidden, 'public answer to the private one');
  const fromBen = await reply(ben, root, 'ben is here');

  assert.equal((await context(root, ann)).descendants, [hidden, under, fromBen], 'a follower sees the private reply');
  assert.equal((await context(root, dan)).descendants, [under, fromBen], 'others do not, but what is under it stays');
  assert.equal((await context(root, cat)).descendants, [hidden, under, fromBen], 'the author sees their own');
  assert.is((await h.api(dan.token, 'GET', `/api/v1/statuses/${hidden}/context`)).status, 404);

  await h.api(dan.token, 'POST', `/api/v1/accounts/${ben.id}/block`);
  assert.equal((await context(root, dan)).descendants, [under], 'a blocked author is left out');
  await h.api(dan.token, 'POST', `/api/v1/accounts/${ann.id}/mute`);
  assert.equal(
    (await context(under, dan)).ancestors,
    [],
    'a muted author is left out (the status asked for still shows)',
  );
  await h.api(dan.token, 'POST', `/api/v1/accounts/${ann.id}/unmute`);
  assert.equal((await context(under, dan)).ancestors, [root]);

  await h.api(ben.token, 'DELETE', `/api/v1/statuses/${fromBen}`);
  assert.equal((await context(root, ann)).descendants, [hidden, under], 'deleted replies are gone');
});

test('context: anonymous readers get 20 levels of replies, signed-in readers the whole thread', async () => {
  const root = await post(ann, 'a long chain');
  const chain: string[] = [];
  for (let i = 0; i < 22; i++) chain.push(await reply(i % 2 ? ann : ben, chain[i - 1] ?? root, `link ${i}`));
  assert.equal((await context(root, null)).descendants, chain.slice(0, 20));
  assert.equal((await context(root, cat)).descendants, chain);
  assert.equal((await context(chain[21], cat)).ancestors, [root, ...chain.slice(0, 21)]);
  assert.is((await context(chain[21], null)).ancestors.length, 22, 'anonymous ancestors go up to 40');
});

test('source: the text as written, for editing; 404 where the status cannot be seen', async () => {
  const id = await post(ann, 'Hello @ben, see https://example.test', { spoiler_text: 'greeting' });
  const res = await h.api(ann.token, 'GET', `/api/v1/statuses/${id}/source`);
  assert.is(res.status, 200);
  assert.equal(res.body, { id, text: 'Hello @ben, see https://example.test', spoiler_text: 'greeting' });
  const secret = await post(cat, 'followers only', { visibility: 'private' });
  assert.is((await h.api(dan.token, 'GET', `/api/v1/statuses/${secret}/source`)).status, 404);
  assert.is((await h.api(null, 'GET', `/api/v1/statuses/${id}/source`)).status, 401);
});

test('history: one version for a status never edited, then the original and every edit with its media', async () => {
  const media = { id: await uploadPng(h.url, ann.token, 'blue') };
  const posted = (await h.api(ann.token, 'POST', '/api/v1/statuses', { status: 'first words', media_ids: [media.id] }))
    .body;
  const history = async (who: TestAccount | null = dan) => {
    const res = await h.api(who?.token ?? null, 'GET', `/api/v1/statuses/${posted.id}/history`);
    assert.is(res.status, 200, JSON.stringify(res.body));
    return res.body as Array<Record<string, any>>;
  };
  const unedited = await history(null);
  assert.is(unedited.length, 1);
  assert.is(unedited[0].content, '<p>first words</p>');
  assert.is(unedited[0].created_at, posted.created_at);
  assert.is(unedited[0].account.id, ann.id);
  assert.equal(
    unedited[0].media_attachments.map((m: { id: string }) => m.id),
    [media.id],
  );

  assert.is((await h.api(ann.token, 'PUT', `/api/v1/statuses/${posted.id}`, { status: 'second words' })).status, 200);
  const edited = (
    await h.api(ann.token, 'PUT', `/api/v1/statuses/${posted.id}`, {
      status: 'third words',
      spoiler_text: 'now with a warning',
    })
  ).body;
  const versions = await history();
  assert.equal(
    versions.map((v) => v.content),
    ['<p>first words</p>', '<p>second words</p>', '<p>third words</p>'],
  );
  assert.equal(
    versions.map((v) => v.sensitive),
    [false, false, true],
  );
  assert.is(versions[2].spoiler_text, 'now with a warning');
  assert.is(versions[0].created_at, posted.created_at);
  assert.is(versions[2].created_at, edited.edited_at);
  assert.ok(versions[1].created_at > versions[0].created_at && versions[1].created_at <= versions[2].created_at);
  for (const version of versions) {
    assert.is(version.account.id, ann.id);
    assert.equal(
      version.media_attachments.map((m: { id: string; description: string }) => [m.id, m.description]),
      [[media.id, 'blue']],
    );
    assert.equal(version.emojis, []);
  }

  const secret = await post(cat, 'followers only', { visibility: 'private' });
  assert.is((await h.api(dan.token, 'GET', `/api/v1/statuses/${secret}/history`)).status, 404);
});

test("preferences follow the account's posting defaults", async () => {
  const before = await h.api(dan.token, 'GET', '/api/v1/preferences');
  assert.is(before.status, 200);
  assert.is(before.body['posting:default:visibility'], 'public');
  assert.is(before.body['posting:default:sensitive'], false);
  assert.is(before.body['reading:expand:spoilers'], false);
  await h.api(dan.token, 'PATCH', '/api/v1/accounts/update_credentials', {
    source: { privacy: 'unlisted', sensitive: true, language: 'de' },
  });
  const after = await h.api(dan.token, 'GET', '/api/v1/preferences');
  assert.is(after.body['posting:default:visibility'], 'unlisted');
  assert.is(after.body['posting:default:sensitive'], true);
  assert.is(after.body['posting:default:language'], 'de');
});

test('trends are off: empty lists, without a token too', async () => {
  for (const path of ['/api/v1/trends', '/api/v1/trends/tags', '/api/v1/trends/statuses', '/api/v1/trends/links']) {
    const res = await h.api(null, 'GET', path);
    assert.is(res.status, 200, path);
    assert.equal(res.body, [], path);
  }
});

test.run();
