/** The HTTP (EventSource) stream read as raw bytes off the socket: framed exactly as Mastodon's. */
import { connect, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let eve: TestAccount;

test.before(async () => {
  h = await startSocialDaemon();
  eve = await h.account('eve');
});
test.after(async () => {
  await h?.stop();
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
  const socket = connect(h.daemon.streamingPort, '127.0.0.1');
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
