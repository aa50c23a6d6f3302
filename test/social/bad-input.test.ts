/**
 * Bad input is the client's error: bodies that lie about their Content-Encoding (400), unknown
 * encodings (415), NUL and control characters in a search (taken as text), out-of-range durations,
 * expiries and offsets (422); always {"error": "..."}, and logged without a stack trace.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gzipSync } from 'node:zlib';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let alice: TestAccount;
let bob: TestAccount;

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_LOG_LEVEL: 'debug' });
  alice = await h.account('alice');
  bob = await h.account('bob');
});
test.after(async () => {
  await h?.stop();
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
