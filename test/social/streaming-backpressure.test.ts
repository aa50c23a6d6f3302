/**
 * The slow streaming clients: WebSocket and EventSource clients that stop reading are cut off by
 * the daemon once their backlog passes its bound, their queued bytes are freed (the streaming
 * server's /metrics), and a client that keeps reading still gets every event.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { get, type IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

const SLOW_WEBSOCKETS = 12;
const SLOW_EVENT_STREAMS = 4;
const POSTERS = 3;
/**
 * The posters post until every slow client is cut off: one public stream must carry several MB
 * first (the kernel's socket buffers and the daemon's bound). A bound that never cuts stops here.
 */
const MOST_STATUSES = 1500;
const TAGS = Array.from({ length: 5 }, (_, i) => `bp${String(i).padStart(2, '0')}`);

let h: SocialHarness;
let owner: TestAccount;
let posters: TestAccount[];
let streamingUrl: string;

test.before(async () => {
  h = await startSocialDaemon();
  owner = await h.account('boss', { owner: true, scopes: 'read admin:read' });
  posters = [];
  for (let i = 0; i < POSTERS; i++) {
    const poster = await h.account(`poster${i}`);
    // A long profile note and four full profile fields make each status event bigger: fewer posts
    // fill a slow client's buffers.
    const field = { name: '&'.repeat(255), value: '&'.repeat(255) };
    const profile = { note: '&'.repeat(500), fields_attributes: { 0: field, 1: field, 2: field, 3: field } };
    assert.is((await h.api(poster.token, 'PATCH', '/api/v1/accounts/update_credentials', profile)).status, 200);
    posters.push(poster);
  }
  streamingUrl = `127.0.0.1:${h.daemon.streamingPort}`;
});
test.after(async () => {
  await h?.stop();
});

async function metrics(): Promise<Record<string, number>> {
  const res = await fetch(`http://${streamingUrl}/metrics`, { headers: { authorization: `Bearer ${owner.token}` } });
  assert.is(res.status, 200, 'the owner reads /metrics');
  const out: Record<string, number> = {};
  for (const line of (await res.text()).split('\n')) {
    const match = /^([a-z_]+(?:\{[^}]*\})?) (\d+)$/.exec(line);
    if (match) out[match[1]] = Number(match[2]);
  }
  return out;
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface SlowWebSocket {
  ws: WebSocket;
  closed: Promise<number>;
  received: () => number;
}

function slowWebSocket(): Promise<SlowWebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${streamingUrl}/api/v1/streaming?stream=public:local`);
    let received = 0;
    const closed = new Promise<number>((done) => ws.on('close', (code) => done(code)));
    ws.on('message', () => {
      received++;
    });
    ws.once('error', reject);
    ws.once('open', () => {
      // Every tag twice (hashtag, hashtag:local): each status reaches this client 11 times.
      for (const tag of TAGS)
        for (const stream of ['hashtag', 'hashtag:local']) ws.send(JSON.stringify({ type: 'subscribe', stream, tag }));
      ws.pause();
      resolve({ ws, closed, received: () => received });
    });
  });
}

interface SlowEventStream {
  res: IncomingMessage;
  closed: Promise<boolean>;
}

function slowEventStream(): Promise<SlowEventStream> {
  return new Promise((resolve, reject) => {
    get(`http://${streamingUrl}/api/v1/streaming?stream=public:local`, (res) => {
      assert.is(res.statusCode, 200);
      res.socket.pause();
      // An event stream never ends by itself: closed at all, it was cut (complete stays false).
      const closed = new Promise<boolean>((done) => res.on('close', () => done(res.complete)));
      res.on('error', () => undefined);
      resolve({ res, closed });
    }).on('error', reject);
  });
}

test('slow clients are disconnected and their queues freed, while a reading client gets every event', async () => {
  const idle = await metrics();
  const fast = new WebSocket(`ws://${streamingUrl}/api/v1/streaming?stream=public:local`);
  const fastIds = new Set<string>();
  fast.on('message', (data) => {
    const message = JSON.parse((data as Buffer).toString());
    if (message.event === 'update') fastIds.add(JSON.parse(message.payload).id);
  });
  await new Promise((resolve) => fast.once('open', resolve));
  const slowSockets = await Promise.all(Array.from({ length: SLOW_WEBSOCKETS }, slowWebSocket));
  const slowStreams = await Promise.all(Array.from({ length: SLOW_EVENT_STREAMS }, slowEventStream));
  await waitFor('the clients to be counted', async () => {
    const m = await metrics();
    return m['nestbox_streaming_clients{type="websocket"}'] === SLOW_WEBSOCKETS + 1 &&
      m['nestbox_streaming_clients{type="eventsource"}'] === SLOW_EVENT_STREAMS
      ? m
      : undefined;
  });

  // The longest status there is, its hashtags over and over: each one a link in the rendered
  // content, so each event is about as big as a status can make it.
  const text = Array.from({ length: 100 }, (_, i) => `#${TAGS[i % TAGS.length]}`)
    .join(' ')
    .slice(0, 500)
    .replace(/ \S*$/, '');
  const posted: string[] = [];
  const cutOff = () => h.daemon.logs.filter((line) => line.msg === 'streaming client fell behind; disconnected').length;
  await Promise.all(
    posters.map(async (poster) => {
      while (cutOff() < SLOW_WEBSOCKETS + SLOW_EVENT_STREAMS && posted.length < MOST_STATUSES) {
        const res = await h.api(poster.token, 'POST', '/api/v1/statuses', { status: text, visibility: 'public' });
        assert.is(res.status, 200, JSON.stringify(res.body));
        posted.push(res.body.id);
      }
    }),
  );

  const after = await waitFor('every slow client to be cut off', async () => {
    const m = await metrics();
    return m.nestbox_streaming_slow_clients_closed_total === SLOW_WEBSOCKETS + SLOW_EVENT_STREAMS ? m : undefined;
  });
  assert.is(after['nestbox_streaming_clients{type="websocket"}'], 1, 'only the reading client is left');
  assert.is(after['nestbox_streaming_clients{type="eventsource"}'], 0);
  assert.ok(
    after.nestbox_streaming_queued_bytes < 512 * 1024,
    `queued bytes back to a reading client's at most: ${after.nestbox_streaming_queued_bytes}`,
  );
  assert.is(idle.nestbox_streaming_slow_clients_closed_total, 0);
  assert.ok(
    h.daemon.logs.some(
      (line) => line.msg === 'streaming client fell behind; disconnected' && line.transport === 'eventsource',
    ),
  );

  await waitFor('the reading client to get every status', () =>
    posted.every((id) => fastIds.has(id)) ? true : undefined,
  );
  assert.is(fast.readyState, WebSocket.OPEN, 'the reading client stays connected');

  // Once they read again, the slow clients find their connections cut, not closed in order.
  for (const slow of slowSockets) slow.ws.resume();
  const codes = await Promise.all(slowSockets.map((slow) => slow.closed));
  assert.ok(
    codes.every((code) => code === 1006),
    `abnormal closure: ${codes.join(',')}`,
  );
  for (const slow of slowSockets)
    assert.ok(slow.received() < posted.length * (TAGS.length * 2 + 1), 'a slow socket did not get everything');
  for (const slow of slowStreams) {
    slow.res.resume();
    slow.res.socket.resume();
  }
  assert.equal(
    await Promise.all(slowStreams.map((slow) => slow.closed)),
    slowStreams.map(() => false),
    'the event streams were cut',
  );

  await waitFor('nothing queued', async () =>
    (await metrics()).nestbox_streaming_queued_bytes === 0 ? true : undefined,
  );
  fast.close();
});

test("/metrics is the owner's alone", async () => {
  const member = await h.account('member');
  assert.is((await fetch(`http://${streamingUrl}/metrics`)).status, 403);
  assert.is(
    (await fetch(`http://${streamingUrl}/metrics`, { headers: { authorization: `Bearer ${member.token}` } })).status,
    403,
  );
});

test.run();
