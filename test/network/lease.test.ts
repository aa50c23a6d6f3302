import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseDhcpEvent } from '../../daemon/network/lease.js';
import { dnsmasqArgs, setupDhcpRange } from '../../daemon/network/dhcp-server.js';

const NOW = new Date('2026-11-26T10:00:00.000Z');
const line = (fields: Record<string, string>) =>
  JSON.stringify({ interface: 'ethsta0', ip: '', mask: '', router: '', dns: '', lease: '', serverid: '', ...fields });

test('a bound event becomes a lease: CIDR address, first router as gateway, DNS list, expiry from the lease time', () => {
  const event = parseDhcpEvent(
    line({
      event: 'bound',
      ip: '10.77.0.23',
      mask: '24',
      router: '10.77.0.1 10.77.0.2',
      dns: '10.77.0.1 9.9.9.9',
      lease: '3600',
    }),
    NOW,
  );
  assert.equal(event, {
    event: 'bound',
    lease: {
      address: '10.77.0.23/24',
      gateway: '10.77.0.1',
      dns: ['10.77.0.1', '9.9.9.9'],
      lease_expires_at: '2026-11-26T11:00:00.000Z',
    },
  });
});

test('renew without router or lease time: no gateway, no expiry; deconfig, leasefail and nak carry no lease', () => {
  assert.equal(parseDhcpEvent(line({ event: 'renew', ip: '192.168.1.9', mask: '16' }), NOW)!.lease, {
    address: '192.168.1.9/16',
    gateway: null,
    dns: [],
    lease_expires_at: null,
  });
  for (const name of ['deconfig', 'leasefail', 'nak'])
    assert.equal(parseDhcpEvent(line({ event: name }), NOW), { event: name, lease: null });
});

test('hostile or broken lines are refused: not JSON, unknown event, a bad address, junk in the lists is left out', () => {
  assert.is(parseDhcpEvent('udhcpc: started, v1.35.0'), null);
  assert.is(parseDhcpEvent('[]'), null);
  assert.is(parseDhcpEvent(line({ event: 'reboot' })), null);
  assert.is(parseDhcpEvent(line({ event: 'bound', ip: '10.0.0.300', mask: '24' })), null);
  assert.is(parseDhcpEvent(line({ event: 'bound', ip: '10.0.0.3', mask: '40' })), null);
  const lease = parseDhcpEvent(
    line({
      event: 'bound',
      ip: '10.0.0.3',
      mask: '24',
      router: '$(reboot) 10.0.0.1',
      dns: '"; rm -rf / 10.0.0.1',
      lease: '12abc',
    }),
    NOW,
  )!.lease!;
  assert.equal([lease.gateway, lease.dns, lease.lease_expires_at], ['10.0.0.1', ['10.0.0.1'], null]);
});

test('setup DHCP range: inside the subnet, without the box address and the ends', () => {
  assert.equal(setupDhcpRange('192.168.4.1', 24), {
    start: '192.168.4.10',
    end: '192.168.4.250',
    netmask: '255.255.255.0',
  });
  assert.equal(setupDhcpRange('10.9.0.1', 16), { start: '10.9.0.10', end: '10.9.255.250', netmask: '255.255.0.0' });
  assert.equal(setupDhcpRange('172.16.0.2', 29), {
    start: '172.16.0.1',
    end: '172.16.0.6',
    netmask: '255.255.255.248',
  });
  assert.equal(setupDhcpRange('172.16.0.1', 29), {
    start: '172.16.0.2',
    end: '172.16.0.6',
    netmask: '255.255.255.248',
  });
});

test('dnsmasq arguments: the AP interface only, no DNS, router/DNS = the box, option 114 as a bare URI, files in the state dir', () => {
  const args = dnsmasqArgs(
    { iface: 'ethap0', address: '192.168.4.1', prefixLength: 24, stateDir: '/var/lib/nestbox/network' },
    'nestbox',
  );
  for (const expected of [
    '--interface=ethap0',
    '--bind-interfaces',
    '--port=0',
    '--keep-in-foreground',
    '--no-resolv',
    '--no-hosts',
    '--conf-file=/dev/null',
    '--log-facility=-',
    '--dhcp-range=192.168.4.10,192.168.4.250,255.255.255.0,15m',
    '--dhcp-option=option:router,192.168.4.1',
    '--dhcp-option=option:dns-server,192.168.4.1',
    '--dhcp-option=114,http://192.168.4.1/setup',
    '--dhcp-leasefile=/var/lib/nestbox/network/setup-ap.leases',
    '--pid-file=/var/lib/nestbox/network/setup-ap-dnsmasq.pid',
  ])
    assert.ok(args.includes(expected), expected);
  assert.not.ok(
    args.some((arg) => arg.startsWith('--user')),
    'a non-root daemon never asks dnsmasq to switch user',
  );
  assert.ok(
    dnsmasqArgs({ iface: 'ethap0', address: '192.168.4.1', prefixLength: 24, stateDir: '/tmp' }, 'root').includes(
      '--user=root',
    ),
  );
});

test.run();
