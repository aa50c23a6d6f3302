/**
 * RFC 2136 with IPv6 against a real authoritative server (knotd on loopback): the box's IPv6
 * address goes into an AAAA rrset beside the A one, each replaced only when it changed, and
 * without a public IPv4 address (carrier-grade NAT) only the AAAA is written and checked.
 */
import { randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Rfc2136Settings } from '../../daemon/reachability/model.js';
import { PublicName } from '../../daemon/reachability/public-name.js';
import { Rfc2136Client } from '../../daemon/reachability/rfc2136.js';
import { startKnot, type KnotServer } from '../helpers/knot-dns.js';
import { tempDir } from '../helpers/paths.js';

const ZONE = 'owner.example.test';
const NAME = `social.${ZONE}`;
const SECRET = randomBytes(32).toString('base64');
const KEY = { name: 'nestbox-box', algorithm: 'hmac-sha256', secret: SECRET };
const dir = tempDir('nestbox-rfc2136-v6-');
let knot: KnotServer;

const settings = (): Rfc2136Settings => ({
  protocol: 'rfc2136',
  server: knot.server,
  zone: ZONE,
  key_name: KEY.name,
  key_algorithm: 'hmac-sha256',
  key_secret: SECRET,
});

test.before(async () => {
  knot = await startKnot({ zone: ZONE, key: KEY, dir: dir.path });
});

test.after(async () => {
  await knot?.stop();
  dir.remove();
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
