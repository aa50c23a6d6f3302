/** Which peers may be contacted: https and public addresses only, unless private federation is allowed. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkUrl, isPrivateAddress, schemeFor } from '../../../daemon/social/federation/net/address-policy.js';
import { parseAcct } from '../../../daemon/social/federation/fetch/resolver.js';
import { retryDelay } from '../../../daemon/social/federation/delivery/queue.js';
import { parseAttachments } from '../../../daemon/social/federation/objects/attachments.js';

const strict = { allowPrivate: false };
const open = { allowPrivate: true };

test('loopback, private and link-local addresses are refused unless allowed', () => {
  for (const url of [
    'https://127.0.0.1/inbox',
    'https://10.1.2.3/',
    'https://192.168.1.1/',
    'https://[::1]/',
    'https://169.254.169.254/',
    'https://localhost/',
    'https://172.20.0.1/',
  ]) {
    assert.throws(() => checkUrl(strict, url), /not allowed/, url);
    assert.ok(checkUrl(open, url.replace('https:', 'http:')));
  }
  assert.ok(checkUrl(strict, 'https://mastodon.example/inbox'));
});

test('remote attachments on loopback or private addresses are dropped unless private federation is allowed', () => {
  const docs = [
    'https://127.0.0.1/a.png',
    'https://[::1]/b.png',
    'https://10.0.0.7/c.png',
    'http://cdn.example/d.png',
    'https://cdn.example/e.png',
  ].map((url) => ({ type: 'Document', mediaType: 'image/png', url }));
  assert.equal(
    parseAttachments(docs, strict).map((a) => a.remoteUrl),
    ['https://cdn.example/e.png'],
  );
  assert.is(parseAttachments(docs, open).length, 4);
});

test('plain http only with private federation allowed; no credentials in URLs', () => {
  assert.throws(() => checkUrl(strict, 'http://mastodon.example/'), /not allowed/);
  assert.throws(() => checkUrl(open, 'https://user:pw@mastodon.example/'), /not allowed/);
  assert.throws(() => checkUrl(open, 'ftp://mastodon.example/'), /not allowed/);
  assert.is(schemeFor(open, '127.0.0.1:8081'), 'http');
  assert.is(schemeFor(open, 'mastodon.example'), 'https');
  assert.is(schemeFor(strict, '127.0.0.1:8081'), 'https');
});

test('IPv4-mapped IPv6 addresses are judged by their IPv4 address', () => {
  assert.is(isPrivateAddress('::ffff:127.0.0.1'), true);
  assert.is(isPrivateAddress('::ffff:8.8.8.8'), false);
  assert.is(isPrivateAddress('93.184.216.34'), false);
});

test('account addresses parse with a port', () => {
  assert.equal(parseAcct('@alice@127.0.0.1:8081'), { username: 'alice', domain: '127.0.0.1:8081' });
  assert.equal(parseAcct('bob@Social.Example'), { username: 'bob', domain: 'social.example' });
  assert.is(parseAcct('alice'), null);
  assert.is(parseAcct('https://social.example/@alice'), null);
});

test('retry delays double from 30 s up to a ceiling of 12 h', () => {
  const none = () => 0;
  assert.is(retryDelay(1, undefined, undefined, none), 30_000);
  assert.is(retryDelay(2, undefined, undefined, none), 60_000);
  assert.is(retryDelay(30, undefined, undefined, none), 12 * 3600_000);
});

test.run();
