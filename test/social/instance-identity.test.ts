/**
 * The instance's identity on the owner API: name, description, language and contact shown by the
 * instance records and the public pages; the public address stored through the base URL's change
 * function; the reachability self-check, only ever against loopback servers the test runs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isHomeAddress } from '../../daemon/social/onboarding/reachability.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { setupAp } from '../helpers/setup-ap.js';
import { freePort } from '../helpers/ports.js';
import { tempDir } from '../helpers/paths.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let owner: TestAccount;
let alice: TestAccount;

test.before(async () => {
  h = await startSocialDaemon();
  owner = await h.account('boss', { owner: true, scopes: 'admin:read admin:write' });
  alice = await h.account('alice');
});
test.after(async () => {
  await h.stop();
});

test('the owner names the instance; the instance records and the public pages show it', async () => {
  const before = await h.api(owner.token, 'GET', '/api/nestbox/v1/instance');
  assert.is(before.status, 200);
  assert.equal(
    [before.body.title, before.body.language, before.body.contact_username, before.body.base_url],
    ['Nestbox', 'en', null, h.url],
  );
  assert.is(before.body.restart_needed, false);
  const saved = await h.api(owner.token, 'PUT', '/api/nestbox/v1/instance', {
    title: '  The Family Nest ',
    short_description: 'Posts from our house <3',
    language: 'de',
    contact_username: 'alice',
  });
  assert.is(saved.status, 200, JSON.stringify(saved.body));
  assert.is(saved.body.title, 'The Family Nest');
  const v1 = (await h.api(null, 'GET', '/api/v1/instance')).body;
  assert.equal(
    [v1.title, v1.short_description, v1.languages, v1.contact_account.username],
    ['The Family Nest', 'Posts from our house <3', ['de'], 'alice'],
  );
  const v2 = (await h.api(null, 'GET', '/api/v2/instance')).body;
  assert.equal(
    [v2.title, v2.description, v2.languages, v2.contact.account.id],
    ['The Family Nest', 'Posts from our house <3', ['de'], alice.id],
  );
  // A profile page (the landing page is the setup portal's while the box is in setup mode).
  const profile = await (await fetch(`${h.url}/@alice`, { headers: { accept: 'text/html' } })).text();
  assert.match(profile, /The Family Nest/);
});

test('bad fields are refused by name and nothing is stored; only the owner may read or change', async () => {
  const bad = await h.api(owner.token, 'PUT', '/api/nestbox/v1/instance', {
    title: '',
    language: 'xx',
    contact_username: 'nobody',
    short_description: 'y'.repeat(501),
  });
  assert.is(bad.status, 422);
  assert.equal(Object.keys(bad.body.details).sort(), ['contact_username', 'language', 'short_description', 'title']);
  const kept = await h.api(owner.token, 'GET', '/api/nestbox/v1/instance');
  assert.is(kept.body.title, 'The Family Nest');
  assert.is((await h.api(alice.token, 'GET', '/api/nestbox/v1/instance')).status, 403);
  assert.is((await h.api(null, 'PUT', '/api/nestbox/v1/instance', { title: 'x' })).status, 401);
  const readOnly = await h.token('boss', 'admin:read');
  assert.is((await h.api(readOnly, 'PUT', '/api/nestbox/v1/instance', { title: 'x' })).status, 403);
});

test('the self-check finds the box at its own address, says plain http is not enough, and explains the ways', async () => {
  const report = (await h.api(owner.token, 'POST', '/api/nestbox/v1/instance/reachability', {})).body;
  assert.equal(
    [report.url, report.reachable, report.https, report.federation_ready, report.problem],
    [h.url, true, false, false, 'not_https'],
  );
  assert.match(report.summary, /https only/);
  assert.ok(report.advice.some((line: string) => /port 443/.test(line) && /reverse proxy/.test(line)));
  assert.ok(report.advice.some((line: string) => /tunnel/i.test(line)));
  assert.match(report.note, /from the box itself/);
  assert.is((await h.api(null, 'GET', '/api/nestbox/v1/reachability/0123abcd')).status, 404);
});

test('without an HTTPS port the reachability API says it is off, and only to the owner', async () => {
  const off = await h.api(owner.token, 'GET', '/api/nestbox/v1/reachability');
  assert.is(off.status, 409);
  assert.match(off.body.error, /NESTBOX_HTTPS_PORT is empty/);
  const put = await h.api(owner.token, 'PUT', '/api/nestbox/v1/reachability', { name: 'box.example.org' });
  assert.is(put.status, 409);
  assert.is((await h.api(alice.token, 'GET', '/api/nestbox/v1/reachability')).status, 403);
});

test('the self-check tells a closed port and another server from the box', async () => {
  const closed = await freePort();
  const refused = await h.api(owner.token, 'POST', '/api/nestbox/v1/instance/reachability', {
    url: `http://127.0.0.1:${closed}`,
  });
  assert.equal([refused.body.reachable, refused.body.problem], [false, 'refused']);
  assert.match(refused.body.summary, /Nothing answers/);
  const other: Server = createServer((_req, res) => res.end('{"token":"not yours"}'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  try {
    const port = (other.address() as { port: number }).port;
    const elsewhere = await h.api(owner.token, 'POST', '/api/nestbox/v1/instance/reachability', {
      url: `http://127.0.0.1:${port}/`,
    });
    assert.equal([elsewhere.body.reachable, elsewhere.body.problem], [false, 'other_server']);
  } finally {
    other.close();
  }
  const notUrl = await h.api(owner.token, 'POST', '/api/nestbox/v1/instance/reachability', { url: 'ftp://x' });
  assert.is(notUrl.status, 422);
});

test('home addresses are told apart from public ones', () => {
  for (const host of ['localhost', 'nestbox.local', '192.168.1.20', '10.0.0.2', '172.20.1.1', '[::1]', 'fd00::1'])
    assert.ok(isHomeAddress(host), host);
  for (const host of ['social.example.org', '8.8.8.8', '172.32.0.1', '2001:db8::1'])
    assert.not.ok(isHomeAddress(host), host);
});

test('the public address is stored through the base URL change, used from the next start and by the tools', async () => {
  const refused = await h.api(owner.token, 'PUT', '/api/nestbox/v1/instance/base_url', { base_url: 'nestbox' });
  assert.is(refused.status, 422);
  assert.ok(refused.body.details.base_url);
  const next = `http://127.0.0.1:${await freePort()}`;
  const moved = await h.api(owner.token, 'PUT', '/api/nestbox/v1/instance/base_url', { base_url: next });
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  assert.equal([moved.body.base_url, moved.body.running_base_url, moved.body.restart_needed], [next, h.url, true]);
  // The label names the setup network, which the box stores once it has read the chip's MAC.
  await setupAp(h, owner.token);
  const out = tempDir('nestbox-identity-label-');
  try {
    const label = await runAdmin({ dataDir: h.daemon.dataDir, baseUrl: next }, ['label', '--out', out.path]);
    assert.is(label.status, 0, label.stderr);
    assert.ok(readFileSync(join(out.path, 'nestbox-label.svg'), 'utf8').includes(`${next}/dashboard`));
  } finally {
    out.remove();
  }
  const v1 = (await h.api(null, 'GET', '/api/v1/instance')).body;
  assert.is(v1.uri, new URL(h.url).host, 'the running daemon keeps its address until it restarts');
});

test.run();
