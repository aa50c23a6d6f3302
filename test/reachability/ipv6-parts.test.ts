/**
 * IPv6 reachability's pure parts: which of the kernel's addresses the box publishes, its IPv6
 * router, PCP MAP messages as RFC 6887 lays them out, both families in one port-mapping step and
 * each family's reach, the SSDP search's messages, dyndns2's `myip` with both addresses, and which
 * records an update changes (a published AAAA withdrawn once the box has no IPv6 address to publish).
 */
import { createServer, type Server } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dyndns2Update } from '../../daemon/reachability/dyndns2.js';
import { combinedMappingStep, familyReach, onlyOverIpv6 } from '../../daemon/reachability/families.js';
import { defaultRouter, hexToIpv6, pickGlobalAddress } from '../../daemon/reachability/ipv6-address.js';
import { planRecords } from '../../daemon/reachability/record-plan.js';
import { decodeMapResponse, describeResult, encodeMapRequest } from '../../daemon/reachability/pcp.js';
import { IGD2, mSearch, responseLocation } from '../../daemon/reachability/ssdp-search.js';

// /proc/net/if_inet6 as the kernel writes it: address, ifindex, prefix length, scope, flags, name.
const IF_INET6 = [
  '00000000000000000000000000000001 01 80 10 80       lo',
  'fe80000000000000260ac4fffe123456 05 40 20 80  ethsta0', // link-local
  'fd770000000000010000000000000099 05 40 00 00  ethsta0', // ULA
  '20010db8007700013a1b2c3d4e5f6071 05 40 00 01  ethsta0', // temporary (privacy extensions)
  '20010db800770001aaaaaaaaaaaaaaaa 05 40 00 20  ethsta0', // deprecated
  '20010db800770001bbbbbbbbbbbbbbbb 05 40 00 40  ethsta0', // tentative (DAD)
  '20010db8009900010000000000000001 06 40 00 80  ethap0', // another interface
  '20010db800770001260ac4fffe123456 05 40 00 00  ethsta0', // stable SLAAC: the one
].join('\n');

test('the published address: global, not ULA, link-local, temporary, deprecated or tentative, on the station interface', () => {
  assert.equal(pickGlobalAddress(IF_INET6, 'ethsta0'), {
    address: '2001:db8:77:1:260a:c4ff:fe12:3456',
    iface: 'ethsta0',
  });
  assert.equal(pickGlobalAddress(IF_INET6, 'ethap0'), { address: '2001:db8:99:1::1', iface: 'ethap0' });
  assert.is(pickGlobalAddress(IF_INET6.split('\n').slice(0, 6).join('\n'), 'ethsta0'), null);
  // Without the network layer, any interface but loopback.
  assert.is(pickGlobalAddress(IF_INET6, null)?.address, '2001:db8:99:1::1');
  assert.is(hexToIpv6('20010db8000000000000000000000001'), '2001:db8::1');
});

test("the box's IPv6 router: the default route's next hop on that interface", () => {
  const routes = [
    'fd770000000000010000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001  ethsta0',
    '00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe80000000000000c8a1b2fffec3d4e5 00000400 00000003 00000000 00000003  ethsta0',
  ].join('\n');
  assert.is(defaultRouter(routes, 'ethsta0'), 'fe80::c8a1:b2ff:fec3:d4e5');
  assert.is(defaultRouter(routes, 'ethap0'), null);
});

test('PCP MAP request: version 2, opcode 1, lifetime, client address, nonce, TCP, the port as internal and suggested external', () => {
  const nonce = Buffer.from('0102030405060708090a0b0c', 'hex');
  const message = encodeMapRequest({ client: '2001:db8::5', port: 443, lifetime: 3600, nonce });
  assert.is(message.length, 60);
  assert.equal([message[0], message[1], message.readUInt32BE(4)], [2, 1, 3600]);
  assert.is(message.subarray(8, 24).toString('hex'), '20010db8000000000000000000000005');
  assert.equal(message.subarray(24, 36), nonce);
  assert.equal([message[36], message.readUInt16BE(40), message.readUInt16BE(42)], [6, 443, 443]);
  assert.is(message.subarray(44, 60).toString('hex'), '0'.repeat(32));
  assert.throws(() => encodeMapRequest({ client: '10.0.0.1', port: 80, lifetime: 0, nonce }), /IPv6/);
});

test('PCP MAP response: success read back; an error code in words; other datagrams ignored', () => {
  const nonce = Buffer.from('0102030405060708090a0b0c', 'hex');
  const answer = Buffer.concat([encodeMapRequest({ client: '2001:db8::5', port: 80, lifetime: 0, nonce })]);
  answer[1] = 0x81;
  answer[3] = 0;
  answer.writeUInt32BE(7200, 4);
  answer.writeUInt32BE(42, 8);
  Buffer.from('20010db8000000000000000000000005', 'hex').copy(answer, 44);
  assert.equal(decodeMapResponse(answer), {
    result: 0,
    lifetime: 7200,
    epoch: 42,
    nonce,
    port: 80,
    externalPort: 80,
    externalAddress: '2001:db8::5',
  });
  const refused = Buffer.from(answer.subarray(0, 24));
  refused[3] = 2;
  assert.is(decodeMapResponse(refused)?.result, 2);
  assert.match(describeResult(2), /NOT_AUTHORIZED/);
  const request = encodeMapRequest({ client: '2001:db8::5', port: 80, lifetime: 0, nonce });
  assert.is(decodeMapResponse(request), null, 'a request is not an answer');
});

test('port mapping over both families: ok when either is open, the working family first in the words', () => {
  const ok4 = { state: 'ok' as const, detail: 'forwarded' };
  const failed4 = { state: 'failed' as const, detail: 'carrier-grade NAT' };
  const ok6 = { state: 'ok' as const, detail: 'pinholes (PCP)' };
  const off6 = { state: 'off' as const, detail: 'no global IPv6 address' };
  assert.equal(combinedMappingStep(failed4, off6), failed4, 'without IPv6, IPv4 alone as before');
  assert.equal(combinedMappingStep(failed4, ok6), {
    state: 'ok',
    detail: 'IPv6: pinholes (PCP). IPv4: carrier-grade NAT',
  });
  assert.equal(combinedMappingStep(ok4, ok6).detail, 'IPv4: forwarded. IPv6: pinholes (PCP)');
  assert.is(combinedMappingStep(failed4, { state: 'failed', detail: 'no PCP' }).state, 'failed');
});

test('each family reaches the box when its path is open and the name points there; IPv6 only is said', () => {
  const families = familyReach(
    { mapping: { state: 'failed', detail: 'no public address' }, address: null, blocked: 'carrier-grade NAT' },
    { mapping: { state: 'ok', detail: 'PCP' }, address: '2001:db8::5', blocked: null },
    { ipv4: false, ipv6: true },
  );
  assert.equal(families.ipv4, { state: 'failed', detail: 'carrier-grade NAT' });
  assert.equal(families.ipv6, { state: 'ok', detail: 'reachable over IPv6 at 2001:db8::5' });
  assert.is(onlyOverIpv6(families), 'IPv4: carrier-grade NAT');
  const waiting = familyReach(
    { mapping: { state: 'ok', detail: null }, address: '11.77.0.2', blocked: null },
    { mapping: { state: 'off', detail: 'no global IPv6 address' }, address: null, blocked: null },
    { ipv4: false, ipv6: false },
  );
  assert.equal(waiting.ipv4.state, 'pending');
  assert.equal(waiting.ipv6, { state: 'off', detail: 'not published: no global IPv6 address' });
  assert.is(onlyOverIpv6(waiting), null);
});

test('records: an address change sets its record; an AAAA the box published is withdrawn once it has no IPv6 address', () => {
  const both = { ipv4: '11.77.0.2', ipv6: '2001:db8::5' };
  const v4 = { ipv4: '11.77.0.2', ipv6: null };
  assert.equal(planRecords(null, both), { publish: both, withdrawIpv6: null }, 'first update: both');
  assert.is(planRecords(both, both), null, 'nothing changed: no update');
  assert.equal(planRecords(both, { ...both, ipv6: '2001:db8::6' }), {
    publish: { ...both, ipv6: '2001:db8::6' },
    withdrawIpv6: null,
  });
  assert.equal(planRecords(both, v4), { publish: v4, withdrawIpv6: '2001:db8::5' }, 'no IPv6 now: withdrawn');
  assert.is(planRecords(v4, v4), null, 'withdrawn once, not at every cycle');
  assert.equal(planRecords(null, v4), { publish: v4, withdrawIpv6: null }, 'never published: nothing to withdraw');
  assert.equal(planRecords(both, { ipv4: null, ipv6: '2001:db8::5' }), {
    publish: { ipv4: null, ipv6: '2001:db8::5' },
    withdrawIpv6: null,
  });
});

test('an IPv6 address not published says why, and that its old AAAA record was removed', () => {
  const ipv4 = { mapping: { state: 'ok' as const, detail: null }, address: '11.77.0.2', blocked: null };
  const gone = familyReach(
    ipv4,
    {
      mapping: { state: 'off', detail: 'the home network gives the box no global IPv6 address' },
      address: null,
      blocked: null,
    },
    { ipv4: true, ipv6: false },
    '2001:db8::5',
  );
  assert.equal(gone.ipv6, {
    state: 'off',
    detail:
      'not published: the home network gives the box no global IPv6 address; the AAAA record for 2001:db8::5 was removed',
  });
  assert.is(gone.ipv4.state, 'ok');
  const refused = familyReach(
    ipv4,
    { mapping: { state: 'failed', detail: "the router's firewall was not opened" }, address: null, blocked: null },
    { ipv4: true, ipv6: false },
  );
  assert.equal(refused.ipv6, { state: 'failed', detail: "not published: the router's firewall was not opened" });
});

test("SSDP: the IGDv2 search, and only a 200 answer for that target gives the router's description", () => {
  const search = mSearch(IGD2, 1).toString();
  assert.match(search, /^M-SEARCH \* HTTP\/1\.1\r\nHOST: 239\.255\.255\.250:1900\r\nMAN: "ssdp:discover"\r\nMX: 1\r\n/);
  assert.ok(search.endsWith(`ST: ${IGD2}\r\n\r\n`));
  const answer = `HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\nST: ${IGD2}\r\nLocation: http://10.77.0.1:5000/rootDesc.xml\r\n\r\n`;
  assert.is(responseLocation(answer, IGD2), 'http://10.77.0.1:5000/rootDesc.xml');
  assert.is(responseLocation(answer.replace(IGD2, 'upnp:rootdevice'), IGD2), null);
  assert.is(responseLocation(answer.replace('HTTP/1.1 200 OK', 'NOTIFY * HTTP/1.1'), IGD2), null);
});

test('dyndns2 with both families: one update, myip lists the IPv4 then the IPv6 address', async () => {
  let seen = '';
  const server: Server = createServer((req, res) => {
    seen = new URL(req.url!, 'http://x').searchParams.get('myip') ?? '';
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`good ${seen}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    const settings = {
      protocol: 'dyndns2' as const,
      url: `http://127.0.0.1:${port}/nic/update`,
      username: 'u',
      password: 'p',
    };
    const outcome = await dyndns2Update(settings, 'a.example.org', ['11.77.0.2', '2001:db8::5'], {});
    assert.is(outcome.ok, true);
    assert.is(seen, '11.77.0.2,2001:db8::5');
  } finally {
    server.close();
  }
});

test('dyndns2 withdrawing the AAAA record: myip with the IPv4 address alone and an empty myipv6', async () => {
  let query = new URLSearchParams();
  const server: Server = createServer((req, res) => {
    query = new URL(req.url!, 'http://x').searchParams;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('good 11.77.0.2');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    const url = `http://127.0.0.1:${port}/nic/update`;
    const settings = { protocol: 'dyndns2' as const, url, username: 'u', password: 'p' };
    assert.ok((await dyndns2Update(settings, 'a.example.org', ['11.77.0.2'], {}, true)).ok);
    assert.equal([query.get('myip'), query.get('myipv6')], ['11.77.0.2', '']);
    await dyndns2Update(settings, 'a.example.org', ['11.77.0.2'], {});
    assert.is(query.has('myipv6'), false, 'an IPv4 update alone says nothing of IPv6');
  } finally {
    server.close();
  }
});

test.run();
