/**
 * The virtual home itself, without the daemon: real DHCP between its namespaces, the carriers the
 * simulated coprocessor decides, and clean-up of every namespace it made.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DIST } from '../helpers/paths.js';
import { BOX_IFACES, HOME_NET, VirtualHome } from '../helpers/virtual-home/index.js';
import { addNamespace, namespaceName, sweepStaleNamespaces } from '../helpers/virtual-home/netns.js';

let home: VirtualHome;

test.before(async () => {
  home = await VirtualHome.build({ timeScale: 10 });
});

test.after(async () => {
  await home?.close();
});

function linkFlags(namespace: string, iface: string): string {
  return execFileSync('ip', ['-n', namespace, '-o', 'link', 'show', iface], { encoding: 'utf8' });
}

function coproc(path: string, ...args: string[]): Record<string, unknown> {
  return JSON.parse(execFileSync(process.execPath, [join(DIST, 'scripts', 'coproc.js'), ...args, '--device', `serial:${path}`], { encoding: 'utf8' }));
}

test('the box has the driver\'s interface names; each namespace has its own resolv.conf', () => {
  assert.match(linkFlags(home.names.box, BOX_IFACES.station), /ethsta0@/);
  assert.match(linkFlags(home.names.box, BOX_IFACES.ap), /ethap0@/);
  for (const name of Object.values(home.names)) assert.ok(existsSync(`/etc/netns/${name}/resolv.conf`), name);
});

test('bare exchange: the home router leases the box an address on its subnet, with itself as router and DNS', async () => {
  const ms = await home.bareStationExchange();
  assert.ok(ms > 0 && ms < 20_000, `${ms} ms`);
});

test('bare exchange: a setup-AP dnsmasq hands the phone a lease carrying option 114', async () => {
  const { ms, captivePortal } = await home.barePhoneExchange();
  assert.ok(ms > 0 && ms < 20_000, `${ms} ms`);
  assert.is(captivePortal, 'http://192.168.4.1/setup');
});

test('carriers follow the simulated radio: association brings the home link up, a kick takes it down; the phone only while joined', async () => {
  const pty = await home.startCoprocessor();
  await home.waitFor('carriers', 5000).catch(() => undefined);
  const before = performance.now();
  assert.is(coproc(pty, 'connect-ap', '--ssid', 'HomeNet', '--pwd', 'nestbox-home-2024').resp, 0);
  await home.waitFor((e) => e.what === 'carriers' && e.detail?.station === true, 5000, before);
  assert.match(linkFlags(home.names.home, 'lan0'), /state (UP|LOWERLAYERDOWN)|,UP/);
  await home.simCommand('kick');
  await home.waitFor((e) => e.what === 'carriers' && e.detail?.station === false, 5000, before);
  assert.not.match(linkFlags(home.names.home, 'lan0'), /[<,]UP[,>]/);

  const joinedEarly = await home.simCommand('join 02:5a:11:22:33:44');
  assert.is(joinedEarly.mac, null, 'no soft AP yet: nobody can join');
  assert.is(coproc(pty, 'start-softap', '--ssid', 'Nestbox-Setup', '--pwd', 'setup-pass-2024', '--chnl', '6', '--sec-prot', 'WPA2_PSK', '--max-conn', '4', '--bw', 'HT20').resp, 0);
  const joined = performance.now();
  await home.simCommand('join 02:5a:11:22:33:44');
  await home.waitFor((e) => e.what === 'carriers' && e.detail?.phone === true, 5000, joined);
  assert.match(linkFlags(home.names.phone, 'wlan0'), /[<,]UP[,>]/);
  const stopped = performance.now();
  assert.is(coproc(pty, 'stop-softap').resp, 0);
  await home.waitFor((e) => e.what === 'carriers' && e.detail?.phone === false, 5000, stopped);
  assert.not.match(linkFlags(home.names.phone, 'wlan0'), /[<,]UP[,>]/);
  assert.ok(HOME_NET.router);
});

test('a stale namespace of a dead test process is swept; a live one is left alone', async () => {
  const dead = namespaceName('box', 999_999_9);
  await addNamespace(dead);
  const live = home.names.box;
  const swept = sweepStaleNamespaces();
  assert.ok(swept.includes(dead));
  assert.not.ok(readdirSync('/run/netns').includes(dead));
  assert.not.ok(existsSync(`/etc/netns/${dead}`));
  assert.ok(readdirSync('/run/netns').includes(live));
});

test.run();
