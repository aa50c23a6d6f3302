/**
 * The virtual home itself, without the daemon: real DHCP between its namespaces, the driver's
 * interfaces as ESP-Hosted makes them (carrier on, not the chip's MAC, re-created at each chip
 * boot), the frames the simulated radio lets through, and clean-up of every namespace it made.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { DIST } from '../helpers/paths.js';
import { BOX_IFACES, HOME_NET, SOFTAP_MAC, STATION_MAC, VirtualHome } from '../helpers/virtual-home/index.js';
import { addNamespace, namespaceName, sweepStaleNamespaces } from '../helpers/virtual-home/netns.js';

let home: VirtualHome;
/** The simulated coprocessor's pseudo-terminal, once started. */
let pty = '';

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
  return JSON.parse(
    execFileSync(process.execPath, [join(DIST, 'bundle', 'coproc.js'), ...args, '--device', `serial:${path}`], {
      encoding: 'utf8',
    }),
  );
}

test("the box has the driver's interface names, down, with a MAC that is not the chip's; each namespace has its own resolv.conf", async () => {
  assert.match(linkFlags(home.names.box, BOX_IFACES.station), /ethsta0@/);
  assert.match(linkFlags(home.names.box, BOX_IFACES.ap), /ethap0@/);
  for (const iface of Object.values(BOX_IFACES)) {
    const link = await home.links.boxLink(iface);
    assert.not.ok(link.up, `${iface} is down until the daemon brings it up`);
    assert.not.ok([STATION_MAC, SOFTAP_MAC].includes(link.mac), `${iface} has ${link.mac}`);
  }
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

/** One ping from the box's station address to the home router: true when it was answered. */
function boxReachesRouter(): boolean {
  try {
    execFileSync('ip', ['netns', 'exec', home.names.box, 'busybox', 'ping', '-c', '1', '-W', '1', HOME_NET.router], {
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
}

function inBox(...args: string[]): void {
  execFileSync('ip', ['-n', home.names.box, ...args]);
}

test("frames pass the station's link only while the chip is associated, and only under the chip's MAC; the carrier stays on", async () => {
  pty = await home.startCoprocessor();
  await home.waitFor('interfaces_recreated', 10_000);
  inBox('link', 'set', 'dev', BOX_IFACES.station, 'up');
  inBox('addr', 'add', '10.77.0.50/24', 'dev', BOX_IFACES.station);
  try {
    assert.ok((await home.links.boxLink(BOX_IFACES.station)).carrier, 'carrier on, nothing associated');
    assert.not.ok(boxReachesRouter(), 'not associated: no frame passes');
    const before = performance.now();
    assert.is(coproc(pty, 'connect-ap', '--ssid', 'HomeNet', '--pwd', 'nestbox-home-2024').resp, 0);
    await home.waitFor((e) => e.what === 'radio_applied' && e.detail?.station === true, 5000, before);
    assert.not.ok(boxReachesRouter(), "associated, but the box sends under a MAC that is not the chip's");
    inBox('link', 'set', 'dev', BOX_IFACES.station, 'down');
    inBox('link', 'set', 'dev', BOX_IFACES.station, 'address', STATION_MAC);
    inBox('link', 'set', 'dev', BOX_IFACES.station, 'up');
    assert.ok(boxReachesRouter(), "associated, under the chip's MAC: the router answers");
    await home.simCommand('kick');
    await home.waitFor((e) => e.what === 'radio_applied' && e.detail?.station === false, 5000, before);
    assert.not.ok(boxReachesRouter(), 'kicked off: no frame passes');
    assert.ok((await home.links.boxLink(BOX_IFACES.station)).carrier, 'the carrier never followed the radio');
  } finally {
    inBox('addr', 'flush', 'dev', BOX_IFACES.station);
    inBox('link', 'set', 'dev', BOX_IFACES.station, 'down');
  }
});

test("the soft AP's link carries while the soft AP is up; the phone's carrier follows its joining", async () => {
  const joinedEarly = await home.simCommand('join 02:5a:11:22:33:44');
  assert.is(joinedEarly.mac, null, 'no soft AP yet: nobody can join');
  const started = performance.now();
  assert.is(
    coproc(
      pty,
      'start-softap',
      '--ssid',
      'Nestbox-Setup',
      '--pwd',
      'setup-pass-2024',
      '--chnl',
      '6',
      '--sec-prot',
      'WPA2_PSK',
      '--max-conn',
      '4',
      '--bw',
      'HT20',
    ).resp,
    0,
  );
  await home.waitFor(
    (e) => e.what === 'radio_applied' && e.detail?.softAp === true && e.detail?.phone === false,
    5000,
    started,
  );
  assert.equal(home.links.radio.softAp, { open: true, mac: SOFTAP_MAC });
  assert.match(linkFlags(home.names.air, 'ap0'), /[<,]UP[,>]/);
  assert.not.match(linkFlags(home.names.phone, 'wlan0'), /LOWER_UP/);
  const joined = performance.now();
  await home.simCommand('join 02:5a:11:22:33:44');
  await home.waitFor((e) => e.what === 'radio_applied' && e.detail?.phone === true, 5000, joined);
  assert.match(linkFlags(home.names.phone, 'wlan0'), /LOWER_UP/);
  const stopped = performance.now();
  assert.is(coproc(pty, 'stop-softap').resp, 0);
  await home.waitFor(
    (e) => e.what === 'radio_applied' && e.detail?.softAp === false && e.detail?.phone === false,
    5000,
    stopped,
  );
  assert.not.match(linkFlags(home.names.phone, 'wlan0'), /LOWER_UP/);
  assert.match(
    linkFlags(home.names.air, 'ap0'),
    /[<,]UP[,>]/,
    "the soft AP's far end stays up: the box's carrier is on",
  );
  assert.equal(home.links.radio.softAp.open, false);
});

test('a chip reboot deletes both interfaces and makes them again: new index, not the MAC set, no address, down', async () => {
  inBox('link', 'set', 'dev', BOX_IFACES.station, 'address', STATION_MAC);
  inBox('link', 'set', 'dev', BOX_IFACES.ap, 'address', SOFTAP_MAC);
  inBox('addr', 'add', '192.168.4.1/24', 'dev', BOX_IFACES.ap);
  inBox('link', 'set', 'dev', BOX_IFACES.ap, 'up');
  const before = {
    station: await home.links.boxLink(BOX_IFACES.station),
    ap: await home.links.boxLink(BOX_IFACES.ap),
  };
  const reset = home.mark('reset');
  await home.simCommand('reset');
  const recreated = await home.waitFor('interfaces_recreated', 10_000, reset.at);
  assert.ok(
    home.timeline.some((e) => e.at > reset.at && e.at < recreated.at && e.what === 'radio_chip' && e.detail?.booted),
    "re-created on the chip's boot line",
  );
  for (const [role, iface] of Object.entries(BOX_IFACES) as Array<['station' | 'ap', string]>) {
    const after = await home.links.boxLink(iface);
    assert.is.not(after.ifindex, before[role].ifindex, `${iface}: a new interface`);
    assert.is(recreated.detail?.[role], after.ifindex);
    assert.not.ok([STATION_MAC, SOFTAP_MAC].includes(after.mac), `${iface}: ${after.mac}`);
    assert.not.ok(after.up, `${iface} comes back down`);
  }
  assert.not.match(
    execFileSync('ip', ['-n', home.names.box, '-4', 'addr', 'show', 'dev', BOX_IFACES.ap], { encoding: 'utf8' }),
    /inet /,
  );
});

/** A test process holding a virtual home with its coprocessor and agents running; resolves with its namespaces once built. */
function holdHome(): { child: ChildProcess; names: Promise<Record<string, string>> } {
  const script = `import { VirtualHome } from ${JSON.stringify(join(DIST, 'test', 'helpers', 'virtual-home', 'index.js'))};
const home = await VirtualHome.build();
await home.startCoprocessor();
await home.agent('phone');
console.log(JSON.stringify(home.names));
setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const names = new Promise<Record<string, string>>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`the holding process exited (${code}) before building its home`)));
  });
  return { child, names };
}

/** Those of `pids` still running (not zombies awaiting their reaper) after up to 2 s. */
async function stillRunning(pids: string[]): Promise<string[]> {
  const running = () =>
    pids.filter((pid) => {
      try {
        return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    });
  for (let i = 0; i < 20 && running().length; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  return running();
}

function leftovers(names: Record<string, string>): string[] {
  const namespaces = readdirSync('/run/netns');
  return Object.values(names).filter((name) => namespaces.includes(name) || existsSync(`/etc/netns/${name}`));
}

test('an interrupted run (SIGTERM) removes its namespaces and stops everything it started in them', async () => {
  const { child, names } = holdHome();
  const made = await names;
  const pids = Object.values(made).flatMap((name) =>
    execFileSync('ip', ['netns', 'pids', name], { encoding: 'utf8' }).split(/\s+/).filter(Boolean),
  );
  assert.ok(pids.length >= 2, `simulator, socat and agent running: ${pids.join(' ')}`);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  assert.equal(leftovers(made), []);
  assert.equal(await stillRunning(pids), []);
});

test('a killed run (SIGKILL) is swept by the next one, processes and all', async () => {
  const { child, names } = holdHome();
  const made = await names;
  const pids = Object.values(made).flatMap((name) =>
    execFileSync('ip', ['netns', 'pids', name], { encoding: 'utf8' }).split(/\s+/).filter(Boolean),
  );
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  assert.equal(leftovers(made).length, 4, 'nothing ran its clean-up');
  const swept = sweepStaleNamespaces();
  assert.equal(swept.filter((name) => Object.values(made).includes(name)).sort(), Object.values(made).sort());
  assert.equal(leftovers(made), []);
  assert.equal(await stillRunning(pids), []);
});

test('without root it fails within seconds, naming the command to type', () => {
  const started = Date.now();
  const script = `import { VirtualHome } from ${JSON.stringify(join(DIST, 'test', 'helpers', 'virtual-home', 'index.js'))};\nawait VirtualHome.build();`;
  let stderr = '';
  try {
    execFileSync(
      'setpriv',
      ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', script],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 },
    );
    assert.unreachable('built a virtual home without root');
  } catch (error) {
    stderr = String((error as { stderr?: string }).stderr);
  }
  assert.match(stderr, /needs root .*: run {2}sudo npm test -- virtual-home/);
  assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
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
