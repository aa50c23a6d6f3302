/**
 * One visibility rule on every path: each route that takes a status id (taken from the route list
 * the scope walk uses, so a new one is walked too) is called for statuses of each visibility by
 * the author, a follower, a mentioned account, a stranger, an account the author blocks and no
 * one; who may not see a status gets 404 and never its text. Search, context, notifications and
 * streams are held to the same rule.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';
import { ROUTES, X } from '../helpers/social-routes.js';
import { uploadPng } from '../helpers/media-files.js';

type Visibility = 'public' | 'unlisted' | 'private' | 'direct';
type Role = 'author' | 'follower' | 'mentioned' | 'stranger' | 'blocked' | 'anonymous';
interface Walked {
  visibility: Visibility;
  role: Role;
  isAuthor: boolean;
  hasPoll: boolean;
}

/** Mastodon's StatusPolicy#show?, written out as the table the daemon must follow. */
const MAY_SEE: Record<Role, readonly Visibility[]> = {
  author: ['public', 'unlisted', 'private', 'direct'],
  mentioned: ['public', 'unlisted', 'private', 'direct'],
  follower: ['public', 'unlisted', 'private'],
  stranger: ['public', 'unlisted'],
  anonymous: ['public', 'unlisted'],
  blocked: [],
};
const ROLES = Object.keys(MAY_SEE) as Role[];

/**
 * What each status route answers someone who may see the status; everyone else gets 404 (401
 * without a token where a token is required). A route taking a status id that is missing here
 * fails the walk, so a new route has to be classified.
 */
const SEEN: Record<string, (w: Walked) => number> = {
  'GET /api/v1/statuses?id[]=:id': () => 200,
  'GET /api/v1/statuses/:id': () => 200,
  'PUT /api/v1/statuses/:id': (w) => (w.isAuthor ? 200 : 404),
  'DELETE /api/v1/statuses/:id': (w) => (w.isAuthor ? 200 : 404),
  'POST /api/v1/statuses/:id/favourite': () => 200,
  'POST /api/v1/statuses/:id/unfavourite': () => 200,
  'POST /api/v1/statuses/:id/reblog': (w) => (['public', 'unlisted'].includes(w.visibility) ? 200 : 422),
  'POST /api/v1/statuses/:id/unreblog': () => 200,
  'POST /api/v1/statuses/:id/bookmark': () => 200,
  'POST /api/v1/statuses/:id/unbookmark': () => 200,
  'POST /api/v1/statuses/:id/pin': (w) => (w.isAuthor && w.visibility !== 'direct' ? 200 : 422),
  'POST /api/v1/statuses/:id/unpin': (w) => (w.isAuthor ? 200 : 422),
  'POST /api/v1/statuses/:id/mute': () => 200,
  'POST /api/v1/statuses/:id/unmute': () => 200,
  'GET /api/v1/statuses/:id/context': () => 200,
  'GET /api/v1/statuses/:id/source': () => 200,
  'GET /api/v1/statuses/:id/history': () => 200,
  'GET /api/v1/statuses/:id/reblogged_by': () => 200,
  'GET /api/v1/statuses/:id/favourited_by': () => 200,
  'GET /api/v1/polls/:id': () => 200,
  'POST /api/v1/polls/:id/votes': (w) => (w.isAuthor ? 422 : 200),
};

/** The routes that name a status (or its poll) by id, as [method, template, open without a token]. */
const STATUS_ROUTES = ROUTES.filter(([, path]) =>
  /\/statuses\/1(\/|$)|\/statuses\?id\[\]=1|\/polls\/1(\/|$)/.test(path),
).map(([method, path, , open]) => ({
  method,
  template: path.replace(`=${X}`, '=:id').replace(`/${X}`, '/:id'),
  open: Boolean(open),
}));

let h: SocialHarness;
let users: Record<Exclude<Role, 'anonymous'>, TestAccount>;
let tag = 0;

const token = (role: Role) => (role === 'anonymous' ? null : users[role].token);

/** A word no other status holds, so the word in a body means the status leaked. */
const secret = (label: string) => `leak${label}${++tag}z${Math.random().toString(36).slice(2, 8)}`;

async function post(visibility: Visibility, text: string, extra: object = {}) {
  const res = await h.api(users.author.token, 'POST', '/api/v1/statuses', {
    status: `${text} @mentioned`,
    visibility,
    ...extra,
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body as { id: string; uri: string; url: string; poll: { id: string } | null };
}

test.before(async () => {
  h = await startSocialDaemon();
  const made = await Promise.all(ROLES.filter((r) => r !== 'anonymous').map((role) => h.account(role)));
  users = Object.fromEntries(made.map((account) => [account.username, account])) as typeof users;
  assert.is((await h.api(users.follower.token, 'POST', `/api/v1/accounts/${users.author.id}/follow`)).status, 200);
  assert.is((await h.api(users.author.token, 'POST', `/api/v1/accounts/${users.blocked.id}/block`)).status, 200);
});
test.after(async () => {
  await h?.stop();
});

test('every route taking a status id is classified', () => {
  assert.ok(STATUS_ROUTES.length >= 18, `found ${STATUS_ROUTES.length}`);
  const missing = STATUS_ROUTES.map((r) => `${r.method} ${r.template}`).filter((key) => !(key in SEEN));
  assert.equal(missing, [], 'classify these routes in SEEN');
});

const CASES: Array<{ visibility: Visibility; poll: boolean }> = [
  { visibility: 'public', poll: false },
  { visibility: 'unlisted', poll: false },
  { visibility: 'private', poll: false },
  { visibility: 'direct', poll: false },
  { visibility: 'private', poll: true },
];

for (const { visibility, poll } of CASES) {
  test(`walk: a ${visibility} status${poll ? ' with a poll' : ''} on every status route, as each role`, async () => {
    const word = secret(visibility);
    const status = await post(
      visibility,
      `walk ${word}`,
      poll ? { poll: { options: [`yes ${word}`, 'no'], expires_in: 3600 } } : {},
    );
    const failures: string[] = [];
    // The author goes last: editing and deleting are the author's final steps.
    for (const role of [...ROLES.filter((r) => r !== 'author'), 'author' as const]) {
      const walked: Walked = { visibility, role, isAuthor: role === 'author', hasPoll: poll };
      const sees = MAY_SEE[role].includes(visibility);
      const last = (method: string) => ['PUT', 'DELETE'].indexOf(method);
      const routes = [...STATUS_ROUTES].sort((a, b) => last(a.method) - last(b.method));
      for (const route of routes) {
        const isPoll = route.template.startsWith('/api/v1/polls/');
        if (isPoll && !status.poll) continue;
        const path = route.template.replace(':id', isPoll ? status.poll!.id : status.id);
        const body = route.template.endsWith('/votes')
          ? { choices: ['0'] }
          : route.method === 'PUT'
            ? { status: `edited ${word} @mentioned` }
            : undefined;
        const res = await h.api(token(role), route.method, path, body);
        const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
        const what = `${role} ${route.method} ${route.template} (${visibility}${poll ? ', poll' : ''})`;
        let expected: number;
        if (role === 'anonymous' && !route.open) expected = 401;
        else if (!sees) expected = route.template.includes('?id[]=') ? 200 : 404;
        else expected = SEEN[`${route.method} ${route.template}`](walked);
        if (res.status !== expected)
          failures.push(`${what}: ${res.status}, expected ${expected}: ${text.slice(0, 120)}`);
        if (!sees && text.includes(word)) failures.push(`${what}: the text leaked`);
        if (!sees && route.template.includes('?id[]=') && res.status === 200 && (res.body as unknown[]).length !== 0)
          failures.push(`${what}: listed`);
        if (sees && route.method === 'GET' && route.template === '/api/v1/statuses/:id' && !text.includes(word))
          failures.push(`${what}: text missing`);
      }
    }
    assert.equal(failures, []);
  });
}

test('a reblog can be taken back after the author blocks the reblogger, who is still shown nothing', async () => {
  const fan = await h.account(`fan${++tag}`);
  const word = secret('reblogged');
  const status = await post('public', `reblogged ${word}`);
  assert.is((await h.api(fan.token, 'POST', `/api/v1/statuses/${status.id}/reblog`)).status, 200);
  assert.is((await h.api(users.author.token, 'POST', `/api/v1/accounts/${fan.id}/block`)).status, 200);
  const undone = await h.api(fan.token, 'POST', `/api/v1/statuses/${status.id}/unreblog`);
  assert.is(undone.status, 404);
  assert.not.ok(JSON.stringify(undone.body).includes(word));
  assert.equal(
    (await h.api(users.stranger.token, 'GET', `/api/v1/statuses/${status.id}/reblogged_by`)).body,
    [],
    'the reblog is gone',
  );
  assert.is((await h.api(users.author.token, 'GET', `/api/v1/statuses/${status.id}`)).body.reblogs_count, 0);
});

test('a report cites only statuses the reporter may see', async () => {
  const status = await post('private', `reported ${secret('reported')}`);
  for (const role of ['follower', 'stranger', 'blocked'] as const) {
    const res = await h.api(token(role), 'POST', '/api/v1/reports', {
      account_id: users.author.id,
      status_ids: [status.id],
      category: 'other',
    });
    assert.is(res.status, MAY_SEE[role].includes('private') ? 200 : 404, role);
  }
});

test('media of a private status: its URLs only reach who may see it, and cannot be guessed from its id', async () => {
  const mediaId = await uploadPng(h.url, users.author.token, `described ${secret('media')}`);
  const status = await post('private', `with media ${secret('withmedia')}`, { media_ids: [mediaId] });
  assert.is((await h.api(users.stranger.token, 'GET', `/api/v1/statuses/${status.id}`)).status, 404);
  const shown = await h.api(users.follower.token, 'GET', `/api/v1/statuses/${status.id}`);
  const attachment = shown.body.media_attachments[0] as { id: string; url: string; preview_url: string };
  assert.is(attachment.id, mediaId);
  for (const url of [attachment.url, attachment.preview_url]) assert.is((await fetch(url)).status, 200, url);
  const path = new URL(attachment.preview_url).pathname;
  const name = path.slice(path.lastIndexOf('/') + 1);
  const tag = path.split('/').at(-2)!;
  const prefix = '/system/media_attachments/files';
  // Guessing: the id alone, a wrong tag, another attachment's tag.
  const other = await uploadPng(h.url, users.stranger.token);
  const otherTag = new URL(
    (await h.api(users.stranger.token, 'GET', `/api/v1/media/${other}`)).body.preview_url,
  ).pathname
    .split('/')
    .at(-2)!;
  for (const guess of [
    `${prefix}/${mediaId}/${name}`,
    `${prefix}/${mediaId}/${'A'.repeat(tag.length)}/${name}`,
    `${prefix}/${mediaId}/${otherTag}/${name}`,
  ]) {
    assert.is((await fetch(h.url + guess)).status, 404, guess);
  }
});

test("a hashtag's history and a featured tag count only the statuses anyone may see", async () => {
  const name = `walktag${++tag}`;
  assert.is((await h.api(users.author.token, 'POST', '/api/v1/featured_tags', { name })).status, 200);
  const figures = async () => {
    const history = (await h.api(users.stranger.token, 'GET', `/api/v1/tags/${name}`)).body.history as Array<{
      uses: string;
    }>;
    const featured = (await h.api(users.stranger.token, 'GET', `/api/v1/accounts/${users.author.id}/featured_tags`))
      .body as Array<{ name: string; statuses_count: number | string }>;
    return { uses: history[0].uses, featured: Number(featured.find((f) => f.name === name)!.statuses_count) };
  };
  await post('private', `hidden #${name}`);
  await post('direct', `hidden #${name}`);
  assert.equal(await figures(), { uses: '0', featured: 0 });
  await post('public', `open #${name}`);
  assert.equal(await figures(), { uses: '1', featured: 1 });
});

test('search by URL, URI and text finds a status only for those who may see it', async () => {
  for (const visibility of ['private', 'direct'] as const) {
    const word = secret(`search${visibility}`);
    const status = await post(visibility, `found ${word}`);
    for (const role of ROLES.filter((r) => r !== 'anonymous')) {
      const sees = MAY_SEE[role].includes(visibility);
      for (const q of [status.url, status.uri]) {
        const res = await h.api(token(role), 'GET', `/api/v2/search?resolve=true&q=${encodeURIComponent(q)}`);
        assert.is(res.status, 200);
        const ids = (res.body.statuses as Array<{ id: string }>).map((s) => s.id);
        assert.equal(ids, sees ? [status.id] : [], `${role} searching ${q} (${visibility})`);
        if (!sees) assert.not.ok(JSON.stringify(res.body).includes(word), `${role}: text leaked by search`);
      }
      const byText = await h.api(token(role), 'GET', `/api/v2/search?type=statuses&q=${word}`);
      assert.is(byText.status, 200);
      if (!sees) assert.equal(byText.body.statuses, [], `${role} searching the text (${visibility})`);
      const byId = await h.api(token(role), 'GET', `/api/v2/search?resolve=true&q=${status.id}`);
      if (!sees) assert.not.ok(JSON.stringify(byId.body).includes(word), `${role}: text leaked by id search`);
    }
  }
});

test("profiles and ActivityPub notes: an account's statuses by the same rule", async () => {
  const words = new Map<Visibility, string>();
  const uris = new Map<Visibility, string>();
  for (const visibility of ['public', 'unlisted', 'private', 'direct'] as const) {
    const word = secret(`profile${visibility}`);
    words.set(visibility, word);
    uris.set(visibility, (await post(visibility, `profile ${word}`)).uri);
  }
  for (const role of ROLES) {
    const res = await h.api(token(role), 'GET', `/api/v1/accounts/${users.author.id}/statuses?limit=40`);
    assert.is(res.status, 200);
    const text = JSON.stringify(res.body);
    for (const [visibility, word] of words)
      assert.is(
        text.includes(word),
        MAY_SEE[role].includes(visibility),
        `${role} sees the ${visibility} status on the profile`,
      );
  }
  // A peer's fetch is signed in as no one: what anyone may see, and nothing else.
  for (const [visibility, uri] of uris) {
    const res = await fetch(uri, { headers: { accept: 'application/activity+json' } });
    const text = await res.text();
    const open = MAY_SEE.anonymous.includes(visibility);
    assert.is(res.status, open ? 200 : 404, `AP fetch of the ${visibility} status`);
    assert.is(text.includes(words.get(visibility)!), open, `AP fetch of the ${visibility} status shows its text`);
  }
});

test('context leaves out the ancestors and descendants the viewer may not see', async () => {
  const root = await post('public', `root ${secret('root')}`);
  const hiddenWord = secret('hiddenreply');
  const hidden = await post('private', `hidden ${hiddenWord}`, { in_reply_to_id: root.id });
  const leaf = await post('public', `leaf ${secret('leaf')}`, { in_reply_to_id: hidden.id });
  for (const role of ROLES) {
    const sees = MAY_SEE[role].includes('private');
    const down = await h.api(token(role), 'GET', `/api/v1/statuses/${root.id}/context`);
    const up = await h.api(token(role), 'GET', `/api/v1/statuses/${leaf.id}/context`);
    if (role === 'blocked') {
      assert.is(down.status, 404, 'the blocked see no thread of the author');
      continue;
    }
    const ids = (list: Array<{ id: string }>) => list.map((s) => s.id);
    assert.equal(ids(down.body.descendants), sees ? [hidden.id, leaf.id] : [leaf.id], `${role} below the root`);
    assert.equal(ids(up.body.ancestors), sees ? [root.id, hidden.id] : [root.id], `${role} above the leaf`);
    if (!sees)
      assert.not.ok(JSON.stringify([down.body, up.body]).includes(hiddenWord), `${role}: the hidden reply leaked`);
  }
});

test('notifications about a status the viewer may no longer see are left out', async () => {
  // Mentioned in a private status, then blocked by its author: the status is no longer theirs to see.
  const watcher = await h.account(`watcher${++tag}`);
  const word = secret('notified');
  const res = await h.api(users.author.token, 'POST', '/api/v1/statuses', {
    status: `hello @${watcher.username} ${word}`,
    visibility: 'private',
  });
  assert.is(res.status, 200);
  const before = await h.api(watcher.token, 'GET', '/api/v1/notifications');
  assert.ok(JSON.stringify(before.body).includes(word), 'the mentioned account is told of the private post');
  assert.is((await h.api(users.author.token, 'POST', `/api/v1/accounts/${watcher.id}/block`)).status, 200);
  assert.is((await h.api(watcher.token, 'GET', `/api/v1/statuses/${res.body.id}`)).status, 404);
  for (const path of ['/api/v1/notifications', '/api/v2/notifications', `/api/v1/notifications/${before.body[0].id}`]) {
    const after = await h.api(watcher.token, 'GET', path);
    assert.ok(after.status === 200 || after.status === 404, `${path}: ${after.status}`);
    assert.not.ok(JSON.stringify(after.body).includes(word), `${path} still shows the private post`);
  }
});

interface Stream {
  messages: string[];
  ws: WebSocket;
  seen(word: string, timeoutMs?: number): Promise<boolean>;
}

function stream(accessToken: string | null, streams: string[]): Promise<Stream> {
  const base = `ws://127.0.0.1:${h.daemon.streamingPort}/api/v1/streaming`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base}?stream=${streams[0]}${accessToken ? `&access_token=${accessToken}` : ''}`);
    const messages: string[] = [];
    ws.on('message', (data) => messages.push((data as Buffer).toString()));
    ws.once('error', reject);
    ws.once('open', () => {
      for (const name of streams.slice(1)) ws.send(JSON.stringify({ type: 'subscribe', stream: name }));
      resolve({
        messages,
        ws,
        async seen(word, timeoutMs = 3000) {
          const until = Date.now() + timeoutMs;
          while (Date.now() < until) {
            if (messages.some((m) => m.includes(word))) return true;
            await new Promise((r) => setTimeout(r, 25));
          }
          return false;
        },
      });
    });
  });
}

test('streams: a private status and its deletion reach followers only, a direct one its mentioned accounts only', async () => {
  const listeners = {
    follower: await stream(users.follower.token, ['user', 'public']),
    stranger: await stream(users.stranger.token, ['user', 'public', 'public:local']),
    blocked: await stream(users.blocked.token, ['user', 'public']),
    anonymous: await stream(null, ['public']),
  };
  // Both are mentioned; only the follower follows. A direct status reaches no follower it does not mention.
  const privateWord = secret('streamprivate');
  const directWord = secret('streamdirect');
  const privateStatus = await post('private', `streamed ${privateWord}`);
  const directStatus = await post('direct', `streamed ${directWord}`);
  const sentinel = secret('streampublic');
  const publicStatus = await post('public', `streamed ${sentinel}`);
  assert.ok(await listeners.follower.seen(privateWord), 'the follower gets the private status');
  for (const [name, listener] of Object.entries(listeners)) {
    if (name !== 'blocked') assert.ok(await listener.seen(sentinel), `${name} gets the public status that came after`);
    const all = listener.messages.join('\n');
    if (name !== 'follower') assert.not.ok(all.includes(privateWord), `${name} was streamed the private status`);
    assert.not.ok(all.includes(directWord), `${name} was streamed the direct status`);
  }
  assert.not.ok(listeners.blocked.messages.join('').includes(sentinel), 'the blocked were streamed the author');
  // Deleting: even the id of a status goes only to those who may see it.
  for (const status of [privateStatus, directStatus, publicStatus])
    assert.is((await h.api(users.author.token, 'DELETE', `/api/v1/statuses/${status.id}`)).status, 200);
  const deletion = (id: string) => `"payload":"${id}"`;
  assert.ok(
    await listeners.follower.seen(deletion(privateStatus.id)),
    'the follower is told the private status is gone',
  );
  for (const name of ['stranger', 'anonymous'] as const)
    assert.ok(await listeners[name].seen(deletion(publicStatus.id)), `${name} is told the public status is gone`);
  for (const [name, listener] of Object.entries(listeners)) {
    const all = listener.messages.join('\n');
    if (name !== 'follower')
      assert.not.ok(all.includes(privateStatus.id), `${name} was streamed the private status's id`);
    assert.not.ok(all.includes(directStatus.id), `${name} was streamed the direct status's id`);
  }
  for (const listener of Object.values(listeners)) listener.ws.close();
});

test.run();
