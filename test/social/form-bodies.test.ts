/**
 * Request bodies as Rails reads them: a multipart part with a filename is a file whatever its
 * headers, and bracketed names nest the same in multipart, url-encoded and JSON bodies. And ids
 * above 2^53 sent as JSON numbers reach the routes with every digit.
 *
 * Then bad input, the client's error: bodies that lie about their Content-Encoding (400), unknown
 * encodings (415), NUL and control characters in a search (taken as text), out-of-range durations,
 * expiries and offsets (422); always {"error": "..."}, and logged without a stack trace.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gzipSync } from 'node:zlib';
import { png } from '../helpers/media-files.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let ada: TestAccount;
let ana: TestAccount, bo: TestAccount;
let alice: TestAccount, bob: TestAccount;

test.before(async () => {
  // Debug: the bad-input tests read how the daemon logged the requests it refused.
  h = await startSocialDaemon({ NESTBOX_LOG_LEVEL: 'debug' });
  ada = await h.account('ada');
  ana = await h.account('ana');
  bo = await h.account('bo');
  alice = await h.account('alice');
  bob = await h.account('bob');
});
test.after(async () => {
  await h?.stop();
});

type Part = [name: string, value: string] | [name: string, file: { filename: string; data: Buffer }];

/** A multipart body written by hand: fetch's FormData always gives a file part a Content-Type. */
function multipart(parts: Part[]): { body: Buffer; type: string } {
  const boundary = 'nestbox-boundary-7d1f';
  const chunks: Buffer[] = [];
  for (const [name, value] of parts) {
    const file = typeof value === 'string' ? null : value;
    const disposition = `form-data; name="${name}"${file ? `; filename="${file.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push(file ? file.data : Buffer.from(value as string));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

async function send(method: string, path: string, body: Buffer | string, type: string) {
  const response = await fetch(h.url + path, {
    method,
    headers: { authorization: `Bearer ${ada.token}`, 'content-type': type },
    body,
  });
  return { status: response.status, body: (await response.json()) as any };
}

test('a file part without a Content-Type is an upload, its type read from the bytes', async () => {
  const { body, type } = multipart([
    ['description', 'a square'],
    ['file', { filename: 'square', data: await png(40, 40) }],
  ]);
  const media = await send('POST', '/api/v2/media', body, type);
  assert.ok([200, 202].includes(media.status), JSON.stringify(media.body));
  assert.is(media.body.type, 'image');
  assert.is(media.body.description, 'a square');
});

test('profile fields sent with an avatar in one multipart body are kept', async () => {
  const { body, type } = multipart([
    ['display_name', 'Ada'],
    ['fields_attributes[0][name]', 'Site'],
    ['fields_attributes[0][value]', 'ada.example'],
    ['fields_attributes[1][name]', 'Pronouns'],
    ['fields_attributes[1][value]', 'she/her'],
    ['source[privacy]', 'unlisted'],
    ['avatar', { filename: 'me.png', data: await png(64, 64) }],
  ]);
  const updated = await send('PATCH', '/api/v1/accounts/update_credentials', body, type);
  assert.is(updated.status, 200, JSON.stringify(updated.body));
  assert.equal(
    updated.body.fields.map((f: { name: string; value: string }) => [f.name, f.value]),
    [
      ['Site', 'ada.example'],
      ['Pronouns', 'she/her'],
    ],
  );
  assert.is(updated.body.source.privacy, 'unlisted');
  assert.not.match(updated.body.avatar, /missing/);
});

test('a poll and media ids in bracketed names nest alike in multipart, url-encoded and JSON bodies', async () => {
  const ids = [];
  for (let i = 0; i < 2; i += 1) {
    const { body, type } = multipart([['file', { filename: `p${i}.png`, data: await png(20 + i, 20) }]]);
    ids.push((await send('POST', '/api/v2/media', body, type)).body.id as string);
  }
  // Uploads through v2 are processed after the answer: attach them once they are ready (200, not 206).
  for (const id of ids) {
    for (let tries = 0; ; tries += 1) {
      const media = await fetch(`${h.url}/api/v1/media/${id}`, { headers: { authorization: `Bearer ${ada.token}` } });
      if (media.status === 200) break;
      assert.ok(tries < 200, `media ${id} still processing`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const fields: Array<[string, string]> = [
    ['status', 'which one?'],
    ['poll[options][]', 'left'],
    ['poll[options][]', 'right'],
    ['poll[expires_in]', '3600'],
    ['poll[multiple]', 'true'],
  ];
  const asMultipart = multipart(fields);
  const viaMultipart = await send('POST', '/api/v1/statuses', asMultipart.body, asMultipart.type);
  const viaForm = await send(
    'POST',
    '/api/v1/statuses',
    new URLSearchParams(fields).toString(),
    'application/x-www-form-urlencoded',
  );
  const viaJson = await send(
    'POST',
    '/api/v1/statuses',
    JSON.stringify({
      status: 'which one?',
      'poll[options]': ['left', 'right'],
      'poll[expires_in]': 3600,
      'poll[multiple]': true,
    }),
    'application/json',
  );
  for (const posted of [viaMultipart, viaForm, viaJson]) {
    assert.is(posted.status, 200, JSON.stringify(posted.body));
    assert.equal(
      posted.body.poll.options.map((o: { title: string }) => o.title),
      ['left', 'right'],
    );
    assert.is(posted.body.poll.multiple, true);
  }
  const media = multipart([
    ['status', 'two pictures'],
    ['media_ids[]', ids[0]],
    ['media_ids[]', ids[1]],
  ]);
  const withMedia = await send('POST', '/api/v1/statuses', media.body, media.type);
  assert.is(withMedia.status, 200, JSON.stringify(withMedia.body));
  assert.equal(
    withMedia.body.media_attachments.map((m: { id: string }) => m.id),
    ids,
  );
});

test('a dot in a name does not nest (Rails reads it as one name)', async () => {
  const posted = await send(
    'POST',
    '/api/v1/statuses',
    'status=plain&poll.expires_in=60',
    'application/x-www-form-urlencoded',
  );
  assert.is(posted.status, 200, JSON.stringify(posted.body));
  assert.is(posted.body.poll, null);
});

/** The id written as a bare JSON number, as a client that parsed it as a 64-bit integer sends it. */
const bare = (id: string) => {
  assert.ok(BigInt(id) > 2n ** 53n, `the id ${id} is above 2^53`);
  return id;
};

test('a reply, and a reply with a poll, name their parent by a numeric in_reply_to_id', async () => {
  const parent = (await h.api(ana.token, 'POST', '/api/v1/statuses', { status: 'a question' })).body;
  const reply = await h.api(
    bo.token,
    'POST',
    '/api/v1/statuses',
    `{"status":"an answer","in_reply_to_id":${bare(parent.id)}}`,
  );
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.in_reply_to_id, parent.id);
  const poll = await h.api(
    bo.token,
    'POST',
    '/api/v1/statuses',
    `{"status":"vote","in_reply_to_id":${parent.id},"poll":{"options":["yes","no"],"expires_in":3600}}`,
  );
  assert.is(poll.status, 200, JSON.stringify(poll.body));
  assert.is(poll.body.in_reply_to_id, parent.id);
  assert.is(poll.body.poll.options.length, 2);
});

test('a marker takes a numeric last_read_id', async () => {
  const seen = (await h.api(bo.token, 'POST', '/api/v1/statuses', { status: 'seen' })).body;
  const marker = await h.api(ana.token, 'POST', '/api/v1/markers', `{"home":{"last_read_id":${bare(seen.id)}}}`);
  assert.is(marker.status, 200, JSON.stringify(marker.body));
  assert.is(marker.body.home.last_read_id, seen.id);
});

test('arrays of numeric ids: list members and reported statuses', async () => {
  const list = (await h.api(ana.token, 'POST', '/api/v1/lists', { title: 'friends' })).body;
  await h.api(ana.token, 'POST', `/api/v1/accounts/${bo.id}/follow`);
  const added = await h.api(ana.token, 'POST', `/api/v1/lists/${list.id}/accounts`, `{"account_ids":[${bare(bo.id)}]}`);
  assert.is(added.status, 200, JSON.stringify(added.body));
  const members = (await h.api(ana.token, 'GET', `/api/v1/lists/${list.id}/accounts`)).body;
  assert.equal(
    members.map((a: { id: string }) => a.id),
    [bo.id],
  );
  const rude = (await h.api(bo.token, 'POST', '/api/v1/statuses', { status: 'rude' })).body;
  const report = await h.api(
    ana.token,
    'POST',
    '/api/v1/reports',
    `{"account_id":${bare(bo.id)},"status_ids":[${bare(rude.id)}],"comment":"rude"}`,
  );
  assert.is(report.status, 200, JSON.stringify(report.body));
  assert.equal(report.body.status_ids.map(String), [rude.id]);
});

test('small numbers, decimals and text keep their JSON meaning beside a long id', async () => {
  const parent = (await h.api(ana.token, 'POST', '/api/v1/statuses', { status: 'parent' })).body;
  const reply = await h.api(
    bo.token,
    'POST',
    '/api/v1/statuses',
    `{"status":"1234567890123456789 in text","in_reply_to_id":${parent.id},"sensitive":true,"poll":{"options":["a","b"],"expires_in":300.0}}`,
  );
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.is(reply.body.sensitive, true);
  assert.match(reply.body.content, /1234567890123456789 in text/);
  const broken = await h.api(bo.token, 'POST', '/api/v1/statuses', `{"status":"x","in_reply_to_id":${parent.id}`);
  assert.is(broken.status, 400);
  assert.is(broken.body.error, 'Invalid JSON in request body');
});

async function post(path: string, headers: Record<string, string>, body: string | Buffer) {
  const res = await fetch(h.url + path, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as any };
}

test('a body that is not what its Content-Encoding says is 400, with a token or without', async () => {
  for (const encoding of ['gzip', 'deflate', 'br']) {
    const open = await post(
      '/api/v1/apps',
      { 'content-type': 'application/json', 'content-encoding': encoding },
      '{"client_name": "x"}',
    );
    assert.equal(open, { status: 400, body: { error: `The request body is not valid ${encoding}` } }, encoding);
    const signedIn = await post(
      '/api/v1/statuses',
      { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json', 'content-encoding': encoding },
      '{"status": "x"}',
    );
    assert.is(signedIn.status, 400, encoding);
  }
  const form = await post(
    '/oauth/token',
    { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
    'grant_type=password',
  );
  assert.is(form.status, 400);
});

test('a real gzip body is read; an unknown Content-Encoding is 415', async () => {
  const app = await post(
    '/api/v1/apps',
    { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    gzipSync('{"client_name": "zipped", "redirect_uris": "urn:ietf:wg:oauth:2.0:oob"}'),
  );
  assert.is(app.status, 200);
  assert.is(app.body.name, 'zipped');
  const unknown = await post(
    '/api/v1/apps',
    { 'content-type': 'application/json', 'content-encoding': 'zstd-nope' },
    '{}',
  );
  assert.equal(unknown, { status: 415, body: { error: 'Unsupported Content-Encoding: zstd-nope' } });
  const inbox = await post(
    '/inbox',
    { 'content-type': 'application/activity+json', 'content-encoding': 'gzip' },
    gzipSync('{}'),
  );
  assert.is(inbox.status, 415, 'the inbox verifies the bytes as sent');
});

test('NUL and control characters in a search query are taken as separators, never an SQL error', async () => {
  assert.is(
    (await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'a kingfisher by the river' })).status,
    200,
  );
  for (const q of ['kingfisher%00', 'king%00fisher', '%00', '%01%1F%7F', 'river%00%22*']) {
    const res = await h.api(bob.token, 'GET', `/api/v2/search?q=${q}&type=statuses`);
    assert.is(res.status, 200, q);
  }
  const found = await h.api(bob.token, 'GET', '/api/v2/search?q=kingfisher%00river&type=statuses');
  assert.is(found.body.statuses.length, 1, 'the words on either side of the NUL are searched');
});

test('out-of-range durations, expiries and offsets are 422', async () => {
  const mute = await h.api(alice.token, 'POST', `/api/v1/accounts/${bob.id}/mute`, { duration: 1e308 });
  assert.equal([mute.status, mute.body], [422, { error: 'Validation failed: Duration is out of range' }]);
  assert.is((await h.api(alice.token, 'GET', '/api/v1/mutes')).body.length, 0, 'and nothing was muted');
  const v2 = await h.api(alice.token, 'POST', '/api/v2/filters', { title: 'far', context: ['home'], expires_in: 1e20 });
  assert.equal([v2.status, v2.body], [422, { error: 'Validation failed: Expires in is out of range' }]);
  const v1 = await h.api(alice.token, 'POST', '/api/v1/filters', {
    phrase: 'far',
    context: ['home'],
    expires_in: 1e20,
  });
  assert.is(v1.status, 422);
  assert.is((await h.api(alice.token, 'GET', '/api/v2/filters')).body.length, 0, 'and no filter was made');
  for (const offset of ['18446744073709551616', '-1']) {
    const search = await h.api(alice.token, 'GET', `/api/v2/search?q=kingfisher&type=statuses&offset=${offset}`);
    assert.is(search.status, 422, `search offset ${offset}`);
    assert.is(
      (await h.api(alice.token, 'GET', `/api/v1/directory?offset=${offset}`)).status,
      422,
      `directory offset ${offset}`,
    );
  }
});

test('client mistakes are logged as refused, without a stack trace; nothing is logged as a failure', async () => {
  const refused = h.daemon.logs.filter((line) => line.msg === 'request refused');
  assert.ok(refused.some((line) => line.status === 400 && line.error === 'The request body is not valid gzip'));
  assert.ok(
    refused.some((line) => line.status === 422 && line.error === 'Validation failed: Duration is out of range'),
  );
  assert.not.ok(refused.some((line) => JSON.stringify(line).includes('stack')));
  assert.equal(
    h.daemon.logs.filter((line) => line.level === 'error'),
    [],
  );
});

test.run();
