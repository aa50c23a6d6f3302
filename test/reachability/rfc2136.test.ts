/**
 * RFC 2136 updates with TSIG against a real authoritative server (knotd on loopback): the right
 * key changes the record and the server serves it, a wrong secret or an unknown key is refused in
 * plain words with nothing changed, a clock more than TSIG's fudge away is BADTIME said as the
 * clocks' difference, the same address sends no update, and DNS-01 gets a
 * certificate from pebble, which validates through that same server. With IPv6 the box's address
 * goes into an AAAA rrset beside the A one, each replaced only when it changed, an AAAA the box
 * published is deleted (one signed update) once it has no IPv6 address, and without a public IPv4
 * address (carrier-grade NAT) only the AAAA is written and checked.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns';
import { join } from 'node:path';
import { AcmeIssuer } from '../../daemon/reachability/acme.js';
import { CertificateStore } from '../../daemon/reachability/certificate-store.js';
import { ChallengeResponder } from '../../daemon/reachability/challenges.js';
import type { Rfc2136Settings } from '../../daemon/reachability/model.js';
import { PublicName } from '../../daemon/reachability/public-name.js';
import { Rfc2136Client } from '../../daemon/reachability/rfc2136.js';
import { SecretFiles } from '../../daemon/reachability/secret-files.js';
import { parseSettings } from '../../daemon/reachability/settings-input.js';
import { startKnot, type KnotServer } from '../helpers/knot-dns.js';
import { tempDir } from '../helpers/paths.js';
import { startPebble, type Pebble } from '../helpers/pebble.js';

const ZONE = 'owner.example.test';
const NAME = `social.${ZONE}`;
const SECRET = randomBytes(32).toString('base64');
const KEY = { name: 'nestbox-box', algorithm: 'hmac-sha256', secret: SECRET };
const dir = tempDir('nestbox-rfc2136-');
let knot: KnotServer;
let pebble: Pebble | null = null;

const settings = (patch: Partial<Rfc2136Settings> = {}): Rfc2136Settings => ({
  protocol: 'rfc2136',
  server: knot.server,
  zone: ZONE,
  key_name: KEY.name,
  key_algorithm: 'hmac-sha256',
  key_secret: SECRET,
  ...patch,
});

test.before(async () => {
  knot = await startKnot({ zone: ZONE, key: KEY, dir: dir.path });
});

test.after(async () => {
  await pebble?.stop();
  await knot?.stop();
  dir.remove();
});

test('settings: rfc2136 takes server, zone, key name, algorithm and a base64 secret; the name must be in the zone', () => {
  const given = { protocol: 'rfc2136', server: '192.0.2.1:5353', zone: ZONE, key_name: KEY.name, key_secret: SECRET };
  assert.equal(parseSettings({ name: NAME, dyndns: given }).dyndns, { ...given, key_algorithm: 'hmac-sha256' });
  const refusedField = (patch: Record<string, unknown>, name = NAME) => {
    try {
      parseSettings({ name, dyndns: { ...given, ...patch } });
    } catch (error) {
      return (error as { field: string }).field;
    }
    return null;
  };
  assert.is(refusedField({}, 'social.other.example'), 'dyndns.zone');
  assert.is(refusedField({ key_secret: 'not base64!' }), 'dyndns.key_secret');
  assert.is(refusedField({ key_algorithm: 'hmac-sha3' }), 'dyndns.key_algorithm');
  assert.is(refusedField({ server: 'ns1.example.org:99999' }), 'dyndns.server');
  assert.is(refusedField({ server: undefined }), 'dyndns.server');
});

test('a wrong secret: BADSIG in plain words, permanent, and the zone is unchanged', async () => {
  const before = await knot.serial();
  const outcome = await new Rfc2136Client(settings({ key_secret: randomBytes(32).toString('base64') })).publishAddress(
    NAME,
    '11.77.0.2',
  );
  assert.is(outcome.ok, false);
  assert.ok(outcome.permanent);
  assert.match(outcome.detail, /signature is wrong.*\(BADSIG\)/);
  assert.not.match(outcome.detail, SECRET);
  assert.is(await knot.serial(), before);
  assert.equal(await new Rfc2136Client(settings()).query(NAME, 'A'), []);
});

test('an unknown key name: BADKEY in plain words, nothing changed', async () => {
  const before = await knot.serial();
  const outcome = await new Rfc2136Client(settings({ key_name: 'someone-else' })).publishAddress(NAME, '11.77.0.2');
  assert.is(outcome.ok, false);
  assert.match(outcome.detail, /does not know this key.*\(BADKEY\)/);
  assert.is(await knot.serial(), before);
});

test('a zone the server does not hold: NOTAUTH in plain words', async () => {
  const outcome = await new Rfc2136Client(settings({ zone: 'elsewhere.example.test' })).publishAddress(
    'social.elsewhere.example.test',
    '11.77.0.2',
  );
  assert.is(outcome.ok, false);
  assert.match(outcome.detail, /not authoritative for this zone.*\(NOTAUTH\)|refused.*\(REFUSED\)/);
});

test('the right key: the A record is replaced and served; the same address sends no update', async () => {
  const client = new Rfc2136Client(settings());
  const before = await knot.serial();
  const first = await client.publishAddress(NAME, '11.77.0.2');
  assert.ok(first.ok, first.detail);
  assert.match(first.detail, /updated the name/);
  assert.equal(await client.query(NAME, 'A'), ['11.77.0.2']);
  const afterFirst = await knot.serial();
  assert.ok(afterFirst > before);

  const again = await client.publishAddress(NAME, '11.77.0.2');
  assert.ok(again.ok);
  assert.match(again.detail, /already serves this address/);
  assert.is(client.updatesSent, 1);
  assert.is(await knot.serial(), afterFirst);

  const moved = await client.publishAddress(NAME, '11.77.0.9');
  assert.ok(moved.ok, moved.detail);
  assert.equal(await client.query(NAME, 'A'), ['11.77.0.9'], 'the old address is gone');
  assert.is(client.updatesSent, 2);
});

test("TSIG's time signed: 4 minutes off is inside the 300 s fudge; 10 minutes off is BADTIME, said as the clocks' difference", async () => {
  const nowS = () => Math.floor(Date.now() / 1000);
  const close = await new Rfc2136Client(settings(), { nowS: () => nowS() - 240 }).publishAddress(NAME, '11.77.0.21');
  assert.ok(close.ok, close.detail);
  const before = await knot.serial();
  const skewed = await new Rfc2136Client(settings(), { nowS: () => nowS() - 600 }).publishAddress(NAME, '11.77.0.22');
  assert.is(skewed.ok, false);
  assert.is(skewed.permanent, false, 'a clock put right needs no new settings');
  assert.match(skewed.detail, /clocks differ by 10 minutes/, skewed.detail);
  assert.match(skewed.detail, /check the box's time.*\(BADTIME\)/);
  // The server's clock, from its signed answer, is the test's own (same machine).
  const serverTime = /the server's (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(skewed.detail)?.[1];
  assert.ok(serverTime, skewed.detail);
  assert.ok(Math.abs(Date.parse(`${serverTime.replace(' ', 'T')}:00Z`) - Date.now()) < 2 * 60_000);
  assert.is(await knot.serial(), before, 'nothing changed');
  assert.equal(await new Rfc2136Client(settings()).query(NAME, 'A'), ['11.77.0.21']);
});

test('a server that does not answer: not permanent, said in plain words', async () => {
  const outcome = await new Rfc2136Client(settings({ server: '127.0.0.1:9' }), { timeoutMs: 100 }).publishAddress(
    NAME,
    '11.77.0.2',
  );
  assert.is(outcome.ok, false);
  assert.is(outcome.permanent, false);
  assert.match(outcome.detail, /could not be reached/);
});

test('the DNS step: updates only on a change, then checks the name through DNS', async () => {
  const name = new PublicName({ http: {}, dns: { servers: [knot.server] } });
  const given = settings();
  const first = await name.step(NAME, '11.77.0.3', given);
  assert.is(first.state, 'ok', first.detail ?? '');
  assert.match(first.detail!, /points to 11\.77\.0\.3/);
  const serial = await knot.serial();
  assert.is((await name.step(NAME, '11.77.0.3', given)).state, 'ok');
  assert.is(await knot.serial(), serial, 'no second update');
  const refused = await name.step(NAME, '11.77.0.4', settings({ key_name: 'someone-else' }));
  assert.is(refused.state, 'failed');
  assert.match(refused.detail!, /BADKEY/);
});

test('DNS-01: pebble validates the _acme-challenge record written through RFC 2136, and the record goes away', async () => {
  pebble = await startPebble({ dir: dir.path, dnsServer: knot.server });
  const publicName = new PublicName({ http: {}, dns: { servers: [knot.server] } });
  assert.is((await publicName.step(NAME, '11.77.0.3', settings())).state, 'ok');
  const files = new SecretFiles(join(dir.path, 'acme'));
  const issuer = new AcmeIssuer({
    directoryUrl: pebble.directoryUrl,
    extraCa: pebble.caPem,
    lookup,
    store: new CertificateStore(files),
    challenges: new ChallengeResponder(),
    dnsTxt: () => publicName.dnsChallenge(),
  });
  const issued = await issuer.issue(NAME);
  assert.is(issuer.lastChallenge, 'dns-01');
  assert.is(issued.name, NAME);
  assert.ok(Date.parse(issued.notAfter) > Date.now());
  assert.equal(await new Rfc2136Client(settings()).query(`_acme-challenge.${NAME}`, 'TXT'), []);
});

test('A and AAAA: both written and checked; a new IPv6 address replaces the AAAA alone', async () => {
  const name = new PublicName({ http: {}, dns: { servers: [knot.server] } });
  const client = new Rfc2136Client(settings());
  const first = await name.step(NAME, { ipv4: '11.77.0.3', ipv6: '2001:db8:77:1::5' }, settings());
  assert.is(first.state, 'ok', first.detail ?? '');
  assert.match(first.detail!, /points to 11\.77\.0\.3 and 2001:db8:77:1::5/);
  assert.equal(name.pointing, { ipv4: true, ipv6: true });
  assert.equal(await client.query(NAME, 'A'), ['11.77.0.3']);
  assert.equal(await client.query(NAME, 'AAAA'), ['2001:db8:77:1::5']);
  const serial = await knot.serial();
  const moved = await name.step(NAME, { ipv4: '11.77.0.3', ipv6: '2001:db8:77:1::6' }, settings());
  assert.is(moved.state, 'ok', moved.detail ?? '');
  assert.equal(await client.query(NAME, 'AAAA'), ['2001:db8:77:1::6']);
  assert.is(await knot.serial(), serial + 1, 'one update: the A record already served the address');
});

test('no IPv6 address any more: the AAAA rrset the box published is deleted with a signed update, the A record kept', async () => {
  const name = new PublicName({ http: {}, dns: { servers: [knot.server] } });
  const client = new Rfc2136Client(settings());
  assert.is((await name.step(NAME, { ipv4: '11.77.0.3', ipv6: '2001:db8:77:1::8' }, settings())).state, 'ok');
  assert.equal(await client.query(NAME, 'AAAA'), ['2001:db8:77:1::8']);
  // A key that may not update the zone cannot delete it either: nothing changes.
  const serial = await knot.serial();
  const refused = await new Rfc2136Client(settings({ key_name: 'someone-else' })).withdrawIpv6(NAME);
  assert.is(refused.ok, false);
  assert.match(refused.detail, /BADKEY/);
  assert.is(await knot.serial(), serial);

  const step = await name.step(NAME, { ipv4: '11.77.0.3', ipv6: null }, settings());
  assert.is(step.state, 'ok', step.detail ?? '');
  assert.match(step.detail!, /removed the IPv6 address/);
  assert.equal(await client.query(NAME, 'AAAA'), [], 'the AAAA rrset is gone');
  assert.equal(await client.query(NAME, 'A'), ['11.77.0.3']);
  assert.is(await knot.serial(), serial + 1, 'one update: the deletion');
  assert.is(name.withdrawnIpv6, '2001:db8:77:1::8');
  assert.is((await name.step(NAME, { ipv4: '11.77.0.3', ipv6: null }, settings())).state, 'ok');
  assert.is(await knot.serial(), serial + 1, 'withdrawn once, not at every cycle');
});

test('no public IPv4 address: only the AAAA is written and checked', async () => {
  const name = new PublicName({ http: {}, dns: { servers: [knot.server] } });
  const step = await name.step(NAME, { ipv4: null, ipv6: '2001:db8:77:1::7' }, settings());
  assert.is(step.state, 'ok', step.detail ?? '');
  assert.equal(name.pointing, { ipv4: false, ipv6: true });
  const client = new Rfc2136Client(settings());
  assert.equal(await client.query(NAME, 'AAAA'), ['2001:db8:77:1::7']);
  assert.equal(await client.query(NAME, 'A'), ['11.77.0.3'], 'the A record is left as it was');
});

test.run();
