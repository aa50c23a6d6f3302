/**
 * The streaming server with a real WebSocket client: health, token by header/query/subprotocol,
 * streams and events; and the HTTP (EventSource) stream read as raw bytes off the socket, framed
 * exactly as Mastodon's.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let alice: TestAccount;
let bob: TestAccount;
let eve: TestAccount;
let base: string;

test.before(async () => {
  h = await startSocialDaemon();
  alice = await h.account('alice');
  bob = await h.account('bob');
  eve = await h.account('eve');
  base = `ws://127.0.0.1:${h.daemon.streamingPort}/api/v1/streaming`;
  await h.api(alice.token, 'POST', `/api/v1/accounts/${bob.id}/follow`);
});
test.after(async () => {
  await h?.stop();
});

interface Client {
  ws: WebSocket;
  next(match?: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  close(): void;
}

function connect(url: string, options: WebSocket.ClientOptions & { protocols?: string[] } = {}): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, options.protocols ?? [], options);
    const queue: any[] = [];
    const waiters: Array<{ match: (m: any) => boolean; resolve: (m: any) => void }> = [];
    ws.on('message', (data) => {
      const message = JSON.parse((data as Buffer).toString());
      const index = waiters.findIndex((w) => w.match(message));
      if (index >= 0) waiters.splice(index, 1)[0].resolve(message);
      else queue.push(message);
    });
    ws.once('open', () =>
      resolve({
        ws,
        next(match = () => true, timeoutMs = 3000) {
          const index = queue.findIndex(match);
          if (index >= 0) return Promise.resolve(queue.splice(index, 1)[0]);
          return new Promise((res, rej) => {
            const timer = setTimeout(() => rej(new Error('no message in time')), timeoutMs);
            waiters.push({
              match,
              resolve: (m) => {
                clearTimeout(timer);
                res(m);
              },
            });
          });
        },
        close: () => ws.close(),
      }),
    );
    ws.once('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })),
    );
    ws.once('error', reject);
  });
}

test('health answers OK on the streaming port', async () => {
  const res = await fetch(`http://127.0.0.1:${h.daemon.streamingPort}/api/v1/streaming/health`);
  assert.is(res.status, 200);
  assert.is(await res.text(), 'OK');
});

test('an unknown token is refused before the upgrade with 401', async () => {
  try {
    await connect(`${base}?stream=user&access_token=wrong`);
    assert.unreachable('connected');
  } catch (error) {
    assert.is((error as { status?: number }).status, 401);
  }
});

test("user stream by header: a followed account's status arrives as `update` with a JSON string payload and string ids", async () => {
  const client = await connect(`${base}?stream=user`, { headers: { authorization: `Bearer ${alice.token}` } });
  await new Promise((r) => setTimeout(r, 50));
  const posted = await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'hello stream' });
  const message = await client.next((m) => m.event === 'update');
  assert.equal(message.stream, ['user']);
  assert.type(message.payload, 'string');
  const status = JSON.parse(message.payload);
  assert.is(status.id, posted.body.id);
  assert.type(status.account.id, 'string');
  await h.api(bob.token, 'DELETE', `/api/v1/statuses/${posted.body.id}`);
  const deleted = await client.next((m) => m.event === 'delete');
  assert.is(deleted.payload, posted.body.id);
  client.close();
});

test('notifications reach user:notification (token in the query), and subprotocol tokens work', async () => {
  const byQuery = await connect(`${base}?stream=user:notification&access_token=${bob.token}`);
  const byProtocol = await connect(`${base}`, { protocols: [bob.token] });
  byProtocol.ws.send(JSON.stringify({ type: 'subscribe', stream: 'user:notification' }));
  await new Promise((r) => setTimeout(r, 100));
  const status = await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'fav me' });
  await h.api(alice.token, 'POST', `/api/v1/statuses/${status.body.id}/favourite`);
  for (const client of [byQuery, byProtocol]) {
    const message = await client.next((m) => m.event === 'notification');
    assert.equal(message.stream, ['user:notification']);
    const notification = JSON.parse(message.payload);
    assert.is(notification.type, 'favourite');
    assert.is(notification.account.id, alice.id);
    assert.is(notification.status.id, status.body.id);
    client.close();
  }
});

test('subscribe / unsubscribe to public, public:local and hashtag streams without a token', async () => {
  const client = await connect(base);
  client.ws.send(JSON.stringify({ type: 'subscribe', stream: 'hashtag', tag: 'Birds' }));
  client.ws.send(JSON.stringify({ type: 'subscribe', stream: 'public:local' }));
  await new Promise((r) => setTimeout(r, 100));
  const posted = await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'look #birds' });
  const tagged = await client.next((m) => m.event === 'update' && m.stream[0] === 'hashtag');
  assert.equal(tagged.stream, ['hashtag', 'Birds']);
  assert.is(JSON.parse(tagged.payload).id, posted.body.id);
  // A public status of an earlier test may be published just after the subscription: wait for this one.
  const local = await client.next(
    (m) => m.event === 'update' && m.stream[0] === 'public:local' && JSON.parse(m.payload).id === posted.body.id,
  );
  assert.equal(local.stream, ['public:local']);
  client.ws.send(JSON.stringify({ type: 'unsubscribe', stream: 'public:local' }));
  client.ws.send(JSON.stringify({ type: 'subscribe', stream: 'user' }));
  const refused = await client.next((m) => m.error);
  assert.is(refused.status, 401);
  await new Promise((r) => setTimeout(r, 100));
  const untagged = await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'no tag here' });
  const silent = await client
    .next((m) => m.event === 'update' && JSON.parse(m.payload).id === untagged.body.id, 500)
    .then(
      () => false,
      () => true,
    );
  assert.ok(silent, 'unsubscribed stream sends nothing');
  client.ws.send(JSON.stringify({ type: 'subscribe', stream: 'nonsense' }));
  assert.is((await client.next((m) => m.error)).status, 400);
  client.close();
});

test('filters_changed goes to the user stream when a filter changes', async () => {
  const client = await connect(`${base}?stream=user&access_token=${alice.token}`);
  await new Promise((r) => setTimeout(r, 50));
  await h.api(alice.token, 'POST', '/api/v2/filters', {
    title: 'x',
    context: ['home'],
    keywords_attributes: [{ keyword: 'y' }],
  });
  const message = await client.next((m) => m.event === 'filters_changed');
  assert.equal(message.stream, ['user']);
  assert.is(message.payload, undefined);
  client.close();
});

test('an announcement reaction reaches every user stream with its new count', async () => {
  const announcementId = await h.admin.createAnnouncement({ text: 'Picnic on Sunday' });
  const aliceStream = await connect(`${base}?stream=user&access_token=${alice.token}`);
  const bobStream = await connect(`${base}?stream=user&access_token=${bob.token}`);
  await new Promise((r) => setTimeout(r, 50));
  assert.is(
    (await h.api(alice.token, 'PUT', `/api/v1/announcements/${announcementId}/reactions/${encodeURIComponent('👍')}`))
      .status,
    200,
  );
  assert.is(
    (await h.api(bob.token, 'PUT', `/api/v1/announcements/${announcementId}/reactions/${encodeURIComponent('👍')}`))
      .status,
    200,
  );
  const isReaction = (count: number) => (m: any) =>
    m.event === 'announcement.reaction' && JSON.parse(m.payload).count === count;
  for (const stream of [aliceStream, bobStream]) {
    const first = await stream.next(isReaction(1));
    assert.equal(first.stream, ['user']);
    assert.equal(JSON.parse(first.payload), { name: '👍', count: 1, announcement_id: announcementId });
    await stream.next(isReaction(2));
  }
  await h.api(alice.token, 'DELETE', `/api/v1/announcements/${announcementId}/reactions/${encodeURIComponent('👍')}`);
  assert.equal(JSON.parse((await bobStream.next((m) => m.event === 'announcement.reaction')).payload).count, 1);
  aliceStream.close();
  bobStream.close();
});

test('EventSource clients get a stream as Server-Sent Events (legacy path and ?stream=)', async () => {
  const controller = new AbortController();
  const res = await fetch(
    `http://127.0.0.1:${h.daemon.streamingPort}/api/v1/streaming/user?access_token=${alice.token}`,
    { signal: controller.signal },
  );
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type')!, /text\/event-stream/);
  const reader = res.body!.getReader();
  let text = '';
  await reader.read();
  const posted = await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'over server-sent events' });
  while (!/event: update\ndata: .*\n\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  const data = /event: update\ndata: (.*)\n\n/.exec(text)![1];
  assert.is(JSON.parse(data).id, posted.body.id);
  controller.abort();
  const refused = await fetch(`http://127.0.0.1:${h.daemon.streamingPort}/api/v1/streaming?stream=user`);
  assert.is(refused.status, 401);
  const unknown = await fetch(
    `http://127.0.0.1:${h.daemon.streamingPort}/api/v1/streaming?stream=nope&access_token=${alice.token}`,
  );
  assert.is(unknown.status, 400);
});

test('list stream: what the list shows, to its owner only', async () => {
  const carol = await h.account('carol');
  await h.api(alice.token, 'POST', `/api/v1/accounts/${carol.id}/follow`);
  const list = (await h.api(alice.token, 'POST', '/api/v1/lists', { title: 'Bob only' })).body;
  assert.is(
    (await h.api(alice.token, 'POST', `/api/v1/lists/${list.id}/accounts`, { account_ids: [bob.id] })).status,
    200,
  );
  const client = await connect(`${base}?stream=list&list=${list.id}&access_token=${alice.token}`);
  await new Promise((r) => setTimeout(r, 50));
  const fromCarol = await h.api(carol.token, 'POST', '/api/v1/statuses', { status: 'carol is not on the list' });
  const fromBob = await h.api(bob.token, 'POST', '/api/v1/statuses', { status: 'bob is', visibility: 'private' });
  const message = await client.next((m) => m.event === 'update');
  assert.equal(message.stream, ['list', list.id]);
  assert.is(JSON.parse(message.payload).id, fromBob.body.id, "the first update is bob's, not carol's earlier one");
  assert.ok(fromCarol.body.id < fromBob.body.id);
  client.close();

  const intruder = await connect(`${base}?access_token=${bob.token}`);
  intruder.ws.send(JSON.stringify({ type: 'subscribe', stream: 'list', list: list.id }));
  assert.is((await intruder.next((m) => m.error)).status, 401);
  intruder.ws.send(JSON.stringify({ type: 'subscribe', stream: 'list' }));
  assert.is((await intruder.next((m) => m.error)).status, 400);
  intruder.close();
  const sse = await fetch(
    `http://127.0.0.1:${h.daemon.streamingPort}/api/v1/streaming/list?list=${list.id}&access_token=${bob.token}`,
  );
  assert.is(sse.status, 401);
});

test('user stream: a public post with a followed hashtag arrives, from an account not followed', async () => {
  const dora = await h.account('dora');
  assert.is((await h.api(alice.token, 'POST', '/api/v1/tags/owls/follow')).status, 200);
  const client = await connect(`${base}?stream=user&access_token=${alice.token}`);
  await new Promise((r) => setTimeout(r, 50));
  await h.api(dora.token, 'POST', '/api/v1/statuses', { status: 'no tag, not followed' });
  const tagged = await h.api(dora.token, 'POST', '/api/v1/statuses', { status: 'a barn owl #owls' });
  const message = await client.next((m) => m.event === 'update');
  assert.is(JSON.parse(message.payload).id, tagged.body.id);
  client.close();
});

test('direct stream: a direct status arrives as a `conversation` for the account it mentions', async () => {
  const client = await connect(`${base}?stream=direct&access_token=${alice.token}`);
  await new Promise((r) => setTimeout(r, 50));
  const dm = await h.api(bob.token, 'POST', '/api/v1/statuses', { status: '@alice psst', visibility: 'direct' });
  assert.is(dm.status, 200);
  const message = await client.next((m) => m.event === 'conversation');
  assert.equal(message.stream, ['direct']);
  const conversation = JSON.parse(message.payload);
  assert.is(conversation.last_status.id, dm.body.id);
  assert.is(conversation.unread, true);
  assert.equal(
    conversation.accounts.map((a: { id: string }) => a.id),
    [bob.id],
  );
  client.close();
});

test("direct stream: a stranger's direct status held back by the policy sends no conversation", async () => {
  const stranger = await h.account('stranger');
  const client = await connect(`${base}?stream=direct&access_token=${alice.token}`);
  await new Promise((r) => setTimeout(r, 50));
  const held = await h.api(stranger.token, 'POST', '/api/v1/statuses', {
    status: '@alice buy now',
    visibility: 'direct',
  });
  assert.is(held.status, 200);
  const shown = await h.api(bob.token, 'POST', '/api/v1/statuses', {
    status: '@alice the real one',
    visibility: 'direct',
  });
  const message = await client.next((m) => m.event === 'conversation');
  assert.is(JSON.parse(message.payload).last_status.id, shown.body.id, 'the held-back one never came');
  client.close();
});

test('a token without read scopes cannot subscribe to the user stream', async () => {
  const client = await connect(`${base}?access_token=${await h.token('alice', 'write')}`);
  client.ws.send(JSON.stringify({ type: 'subscribe', stream: 'user' }));
  assert.is((await client.next((m) => m.error)).status, 403);
  client.close();
});

/** Reads the socket until `done` says the bytes so far are enough. */
function readUntil(socket: Socket, received: Buffer[], done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const text = Buffer.concat(received).toString('latin1');
      if (!done(text)) return;
      socket.off('data', check);
      clearTimeout(timer);
      resolve(text);
    };
    const timer = setTimeout(() => reject(new Error(`timed out; got ${Buffer.concat(received).toString()}`)), 10000);
    socket.on('data', check);
    check();
  });
}

/** The body of a chunked answer, its chunk framing removed. */
function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const line = /^([0-9a-f]+)\r\n/i.exec(rest);
    if (!line) return out;
    const size = parseInt(line[1], 16);
    out += rest.slice(line[0].length, line[0].length + size);
    rest = rest.slice(line[0].length + size + 2);
  }
}

test('an HTTP stream opens with ":)\\n" and frames update and delete events as Mastodon does', async () => {
  const socket = connectTcp(h.daemon.streamingPort, '127.0.0.1');
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  socket.write(
    `GET /api/v1/streaming/user HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${eve.token}\r\nAccept: text/event-stream\r\n\r\n`,
  );
  const opened = await readUntil(socket, received, (text) => text.includes('\r\n\r\n') && text.includes(':)'));
  const [head, body] = opened.split('\r\n\r\n');
  assert.match(head, /^HTTP\/1\.1 200 /);
  assert.match(head, /\r\ncontent-type: text\/event-stream\r\n/i);
  assert.match(head, /\r\ncache-control: private, no-store\r\n/i);
  assert.match(head, /\r\ntransfer-encoding: chunked\r\n/i);
  assert.is(unchunk(body), ':)\n');

  const posted = (await h.api(eve.token, 'POST', '/api/v1/statuses', { status: 'streamed' })).body;
  const withUpdate = await readUntil(socket, received, (text) =>
    unchunk(text.split('\r\n\r\n')[1] ?? '').includes('\n\n'),
  );
  const events = unchunk(withUpdate.slice(withUpdate.indexOf('\r\n\r\n') + 4));
  const update = /^:\)\nevent: update\ndata: (.*)\n\n$/s.exec(events);
  assert.ok(update, JSON.stringify(events));
  assert.is(JSON.parse(update[1]).id, posted.id);

  await h.api(eve.token, 'DELETE', `/api/v1/statuses/${posted.id}`);
  const withDelete = await readUntil(socket, received, (text) =>
    unchunk(text.slice(text.indexOf('\r\n\r\n') + 4)).includes('event: delete'),
  );
  const all = unchunk(withDelete.slice(withDelete.indexOf('\r\n\r\n') + 4));
  assert.ok(all.endsWith(`\n\nevent: delete\ndata: ${posted.id}\n\n`), JSON.stringify(all));
  socket.destroy();
});

test.run();
