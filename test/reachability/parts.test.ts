/**
 * The reachability flow's pure parts and its small protocol pieces on loopback: the owner's input,
 * the renewal and expiry thresholds, what counts as another NAT, the dyndns2 answers as a provider
 * gives them, the CA's refusals in words, and the 0600 files.
 */
import { createServer, type Server } from 'node:http';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AcmeError, describeAcmeFailure } from '../../daemon/reachability/acme.js';
import { isBehindAnotherNat } from '../../daemon/reachability/addresses.js';
import { nearlyExpired, renewalDue } from '../../daemon/reachability/certificate-store.js';
import { clockSkewMs, clockSkewWords } from '../../daemon/reachability/clock-skew.js';
import { dyndns2Update } from '../../daemon/reachability/dyndns2.js';
import { SecretFiles } from '../../daemon/reachability/secret-files.js';
import { parseSettings, SettingsInputError } from '../../daemon/reachability/settings-input.js';
import { tempDir } from '../helpers/paths.js';

const refused = (body: unknown, field: string) => {
  try {
    parseSettings(body);
  } catch (error) {
    assert.instance(error, SettingsInputError);
    assert.is((error as SettingsInputError).field, field, (error as Error).message);
    return;
  }
  assert.unreachable(`accepted ${JSON.stringify(body)}`);
};

test('settings: a public domain name, lower-cased; addresses, home names and bare labels refused', () => {
  assert.equal(parseSettings({ name: 'Social.Example.ORG.' }), { name: 'social.example.org', dyndns: null });
  for (const name of ['203.0.113.5', 'nestbox.local', 'box.home.arpa', 'localhost', 'example', '-a.example.org', 7])
    refused({ name }, 'name');
});

test('settings: dyndns2 needs an http(s) URL without a login, a user and a password; rfc2136 its server and key', () => {
  const dyndns = { protocol: 'dyndns2', url: 'https://dyn.example.org/nic/update', username: 'u', password: 'p' };
  assert.equal(parseSettings({ name: 'a.example.org', dyndns }).dyndns, dyndns);
  refused({ name: 'a.example.org', dyndns: { ...dyndns, url: 'https://u:p@dyn.example.org/' } }, 'dyndns.url');
  refused({ name: 'a.example.org', dyndns: { ...dyndns, url: 'ftp://dyn.example.org/' } }, 'dyndns.url');
  refused({ name: 'a.example.org', dyndns: { ...dyndns, password: '' } }, 'dyndns.password');
  refused({ name: 'a.example.org', dyndns: { protocol: 'rfc2136', server: 'ns1.example.org' } }, 'dyndns.zone');
  refused({ name: 'a.example.org', dyndns: { protocol: 'nsupdate' } }, 'dyndns.protocol');
});

test('certificates: renewal due at two thirds of the lifetime, nearly expired with less than a sixth left', () => {
  const cert = { notBefore: '2026-01-01T00:00:00.000Z', notAfter: '2026-01-01T01:30:00.000Z' };
  const at = (minutes: number) => Date.parse(cert.notBefore) + minutes * 60_000;
  assert.equal([renewalDue(cert, at(59)), renewalDue(cert, at(60))], [false, true]);
  assert.equal([nearlyExpired(cert, at(75)), nearlyExpired(cert, at(76))], [false, true]);
});

test("the box's clock against the CA's, from a fresh certificate's notBefore: an hour's backdate and five minutes tolerated", () => {
  const issued = Date.parse('2026-12-06T12:00:00Z');
  const notBefore = '2026-12-06T11:00:00Z'; // Boulder backdates an hour
  assert.is(clockSkewMs(notBefore, issued), 0);
  assert.is(clockSkewMs('2026-12-06T12:00:00Z', issued + 4 * 60_000), 0, "pebble's notBefore, a slightly fast box");
  const behind = clockSkewMs(notBefore, Date.parse('2026-01-01T00:00:00Z'));
  assert.ok(behind < -300 * 86400_000, 'a box still at its last shutdown is behind');
  const ahead = clockSkewMs(notBefore, issued + 3 * 3600_000);
  assert.is(ahead, 3 * 3600_000, 'ahead: at least the difference beyond the backdate');
  assert.is(clockSkewMs('not a date', issued), 0);
  assert.is(clockSkewWords(0), null);
  assert.match(clockSkewWords(ahead)!, /clock is at least 3 hours ahead of the certificate authority's/);
  assert.match(clockSkewWords(-10 * 60_000)!, /10 minutes behind/);
  // Renewal on the authority's clock: a box a year ahead would otherwise renew at every cycle.
  const cert = { notBefore, notAfter: '2027-03-06T11:00:00Z' };
  const yearAhead = issued + 365 * 86400_000;
  assert.ok(renewalDue(cert, yearAhead), "on the box's own clock the fresh certificate looks due");
  assert.not.ok(renewalDue(cert, yearAhead - clockSkewMs(notBefore, yearAhead)), "on the authority's clock it is not");
});

test('another NAT in front: 10/8, 172.16/12, 192.168/16 and 100.64/10; public addresses are not', () => {
  for (const address of ['10.1.2.3', '172.31.0.1', '192.168.1.1', '100.64.0.2', '100.127.255.1'])
    assert.ok(isBehindAnotherNat(address), address);
  for (const address of ['11.77.0.2', '172.32.0.1', '100.128.0.1', '203.0.113.9'])
    assert.not.ok(isBehindAnotherNat(address), address);
});

async function provider(answer: (url: URL, auth: string | undefined) => [number, string]): Promise<Server> {
  const server = createServer((req, res) => {
    const [status, text] = answer(new URL(req.url!, 'http://x'), req.headers.authorization);
    res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

test("dyndns2: the provider's answers in plain words; badauth is permanent, 911 is not", async () => {
  const seen: string[] = [];
  const server = await provider((url, auth) => {
    seen.push(`${url.searchParams.get('hostname')} ${url.searchParams.get('myip')} ${auth}`);
    if (auth !== `Basic ${Buffer.from('box:s3cret').toString('base64')}`) return [200, 'badauth'];
    return url.searchParams.get('myip') === '11.77.0.9' ? [200, '911'] : [200, 'good 11.77.0.2'];
  });
  const { port } = server.address() as { port: number };
  const settings = {
    protocol: 'dyndns2' as const,
    url: `http://127.0.0.1:${port}/nic/update`,
    username: 'box',
    password: 's3cret',
  };
  try {
    const good = await dyndns2Update(settings, 'a.example.org', '11.77.0.2', {});
    assert.equal(good, { ok: true, permanent: false, detail: 'the provider updated the name' });
    const trouble = await dyndns2Update(settings, 'a.example.org', '11.77.0.9', {});
    assert.equal([trouble.ok, trouble.permanent], [false, false]);
    const bad = await dyndns2Update({ ...settings, password: 'wrong' }, 'a.example.org', '11.77.0.2', {});
    assert.equal(bad, { ok: false, permanent: true, detail: 'the provider refused the user name or password' });
    assert.is(seen[0], `a.example.org 11.77.0.2 Basic ${Buffer.from('box:s3cret').toString('base64')}`);
  } finally {
    server.close();
  }
});

test("the CA's refusals in words: nobody answering on port 80 blames a blocked port and names DNS-01; DNS-01 failures name the record", () => {
  const words = (message: string, problem: string | null, challenge: 'http-01' | 'dns-01' | null) =>
    describeAcmeFailure(new AcmeError(message, problem, challenge));
  for (const detail of [
    // pebble (Go's dial errors), as acme-client passes the failed challenge's detail on
    'Get "http://social.example.test:80/.well-known/acme-challenge/x": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
    'dial tcp 11.77.0.2:80: connect: connection refused',
    // Boulder (Let's Encrypt)
    '11.77.0.2: Fetching http://social.example.test/.well-known/acme-challenge/x: Timeout during connect (likely firewall problem)',
  ]) {
    const said = words(detail, null, 'http-01');
    assert.match(said, /could not connect to the box on port 80/, said);
    assert.match(said, /internet provider may be blocking it.*DNS-01/);
  }
  assert.match(
    words('x', 'urn:ietf:params:acme:error:connection', 'http-01'),
    /your internet provider may be blocking it/,
  );
  assert.match(
    words('Invalid response from http://social.example.test: 404', null, 'http-01'),
    /refused: Invalid response/,
  );
  assert.match(
    words('x', 'urn:ietf:params:acme:error:unauthorized', 'http-01'),
    /reached a server at this name on port 80, but not the box/,
  );
  assert.match(words('x', 'urn:ietf:params:acme:error:unauthorized', 'dns-01'), /DNS-01 record \(_acme-challenge\)/);
  assert.match(words('slow down', 'urn:ietf:params:acme:error:rateLimited', null), /rate-limiting/);
});

test('secret files: written whole, mode 0600 in a 0700 folder', async () => {
  const dir = tempDir();
  try {
    const files = new SecretFiles(join(dir.path, 'reachability'));
    await files.write('key.pem', 'first');
    await files.write('key.pem', 'second');
    assert.is(await files.read('key.pem'), 'second');
    assert.is(statSync(join(dir.path, 'reachability', 'key.pem')).mode & 0o777, 0o600);
    assert.is(statSync(join(dir.path, 'reachability')).mode & 0o777, 0o700);
    assert.is(await files.read('missing'), null);
  } finally {
    dir.remove();
  }
});

test.run();
