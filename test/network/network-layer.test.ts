/**
 * The network layer on real Linux networking: the box's namespace with veths named like the
 * driver's interfaces, a home router namespace (dnsmasq DHCP), a phone namespace (busybox udhcpc).
 * The layer runs alone in the box namespace (box-runner.js), driven as the connectivity manager
 * would. Root only (network namespaces).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/paths.js';
import { addNamespace, cleanup, ip, namespaceName, requireRoot } from '../helpers/virtual-home/netns.js';
import { spawnIn, type NsProcess } from '../helpers/virtual-home/process.js';
import { startDhcpClient, startDhcpServer, writeClientScript, type DhcpServer } from '../helpers/virtual-home/dhcp.js';
import { NamespaceAgent } from '../helpers/virtual-home/agent-client.js';
import { requirePackage } from '../helpers/system-packages.js';

requireRoot('npm test -- network-layer');
requirePackage(['iproute2', 'dnsmasq-base', 'busybox']);

const RUNNER = fileURLToPath(new URL('./box-runner.js', import.meta.url));
const BOX = namespaceName('nlbox');
const ROUTER = namespaceName('nlrouter');
const PHONE = namespaceName('nlphone');
const STATION_MAC = '02:aa:bb:cc:dd:01';
const SOFTAP_MAC = '02:aa:bb:cc:dd:02';
const dir = tempDir('nestbox-netlayer-');

type Line = Record<string, any>;

/** The layer in the box namespace, and what it printed. */
class Box {
  readonly lines: Line[] = [];
  constructor(readonly process: NsProcess) {
    process.onLine((text) => {
      try {
        this.lines.push(JSON.parse(text));
      } catch {
        /* not ours */
      }
    });
  }

  /** The layer, told the chip's MACs as the runner tells it after the chip's initialisation. */
  static async start(
    env: Record<string, string> = {},
    tools: Record<string, string> = {},
    processEnv: NodeJS.ProcessEnv = process.env,
  ): Promise<Box> {
    const child = spawnIn(
      BOX,
      process.execPath,
      [
        RUNNER,
        JSON.stringify({ env: { NESTBOX_DATA_DIR: join(dir.path, 'data'), NESTBOX_HTTP_PORT: '8080', ...env }, tools }),
      ],
      processEnv,
    );
    const box = new Box(child);
    await child.waitForLine((line) => line.includes('"ready"'), 10_000, 'the box runner', true);
    box.send({ do: 'chip', mac: STATION_MAC, softap: SOFTAP_MAC });
    return box;
  }

  send(command: Record<string, unknown>): void {
    this.process.child.stdin!.write(JSON.stringify(command) + '\n');
  }

  /** The first line from `from` on that matches. */
  async waitFor(match: (line: Line) => boolean, what: string, timeoutMs = 20_000, from = 0): Promise<Line> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.slice(from).find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `${what}: not seen within ${timeoutMs} ms; last lines: ${JSON.stringify(this.lines.slice(-8))}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  health(): Line | undefined {
    return [...this.lines].reverse().find((line) => line.health)?.health;
  }

  async stop(): Promise<void> {
    this.send({ do: 'stop' });
    await Promise.race([this.process.exited, new Promise((resolve) => setTimeout(resolve, 8000))]);
    await this.process.stop(1000);
  }
}

let router: DhcpServer;

async function startRouter(address: string, rangeStart: string, rangeEnd: string): Promise<DhcpServer> {
  await ip('-n', ROUTER, 'addr', 'flush', 'dev', 'home0');
  await ip('-n', ROUTER, 'addr', 'add', `${address}/24`, 'dev', 'home0');
  return startDhcpServer({ namespace: ROUTER, iface: 'home0', address, rangeStart, rangeEnd, dir: dir.path });
}

function inBox(...args: string[]): string {
  return execFileSync('ip', ['-n', BOX, ...args], { encoding: 'utf8' });
}

test.before(async () => {
  for (const name of [BOX, ROUTER, PHONE]) await addNamespace(name);
  await ip('link', 'add', 'ethsta0', 'netns', BOX, 'type', 'veth', 'peer', 'name', 'home0', 'netns', ROUTER);
  await ip('link', 'add', 'ethap0', 'netns', BOX, 'type', 'veth', 'peer', 'name', 'wlan0', 'netns', PHONE);
  await ip('-n', ROUTER, 'link', 'set', 'home0', 'up');
  await ip('-n', PHONE, 'link', 'set', 'wlan0', 'up');
  router = await startRouter('10.77.9.1', '10.77.9.100', '10.77.9.150');
});

test.after(async () => {
  await router?.stop();
  cleanup.runSync();
  dir.remove();
});

test('station: association → MAC set, link up, a lease from the home router in the state; release gives it back and flushes', async () => {
  // A fresh Debian 12 as the test packages leave it: busybox, and no udhcpc package.
  const box = await Box.start({}, {}, { ...process.env, PATH: busyboxOnlyPath() });
  try {
    const started = Date.now();
    box.send({ do: 'associated', mac: STATION_MAC });
    await box.waitFor((line) => line.lease?.up === true, 'the lease');
    const leaseMs = Date.now() - started;
    const network = (await box.waitFor((line) => line.network, 'DeviceState.network')).network;
    assert.match(network.address, /^10\.77\.9\.(1[0-4]\d|150)\/24$/);
    assert.is(network.gateway, '10.77.9.1');
    assert.equal(network.dns, ['10.77.9.1']);
    assert.is(network.mac, STATION_MAC);
    assert.ok(Date.parse(network.lease_expires_at) > Date.now(), 'the lease expiry is ahead');
    assert.match(inBox('link', 'show', 'dev', 'ethsta0'), new RegExp(`link/ether ${STATION_MAC}`));
    assert.ok(
      box.lines.some((line) => line.log?.msg === 'DHCP client (udhcpc) started' && line.log.command === 'busybox'),
      'udhcpc as the busybox applet: this PATH has no udhcpc of its own',
    );
    assert.ok(
      inBox('-4', 'addr', 'show', 'dev', 'ethsta0').includes(`inet ${network.address}`),
      'the address is on the interface',
    );
    assert.match(inBox('route', 'show', 'default'), /default via 10\.77\.9\.1 dev ethsta0/);
    const health = await box.waitFor((line) => line.health?.address === network.address, 'health with the address');
    assert.is(health.health.status, 'ok');
    assert.ok(
      box.lines.some((line) => line.log?.msg === 'station address leased' && line.log.address === network.address),
      'a log line shows the lease',
    );
    console.log(`association → lease: ${leaseMs} ms`);

    const mark = box.lines.length;
    box.send({ do: 'released' });
    await box.waitFor(
      (line) => line.paths?.includes('network') && line.network === null,
      'the station released',
      10_000,
      mark,
    );
    await box.waitFor(
      (line) => line.health && line.health.address === null && line.health.status === 'ok',
      'health without an address',
      10_000,
      mark,
    );
    assert.is(
      box.lines.slice(mark).some((line) => line.lease),
      false,
      'a release asked for is not reported as a lost lease',
    );
    assert.not.match(inBox('-4', 'addr', 'show', 'dev', 'ethsta0'), /inet /);
    await waitForText(
      () => router.process.stderr(),
      /DHCPRELEASE\(home0\) 10\.77\.9\.\d+/,
      'the router to see the release',
    );
  } finally {
    await box.stop();
  }
});

test('station: the home network changes under a held lease → renewal refused → lease lost (a disconnect); a new lease follows', async () => {
  const box = await Box.start();
  try {
    box.send({ do: 'associated', mac: STATION_MAC });
    await box.waitFor((line) => line.lease?.up === true, 'the first lease');
    await router.stop();
    router = await startRouter('10.78.0.1', '10.78.0.100', '10.78.0.150');
    const mark = box.lines.length;
    box.send({ do: 'renew' });
    const lost = await box.waitFor((line) => line.lease?.up === false, 'the lease lost', 30_000, mark);
    assert.match(lost.lease.reason, /not renewed/);
    await box.waitFor(
      (line) => line.paths?.includes('network') && line.network === null,
      'network null in the state',
      5000,
      mark,
    );
    assert.ok(
      box.lines
        .slice(mark)
        .some((line) => line.health?.status === 'degraded' && /lost the address/.test(line.health.detail)),
      'degraded with the reason',
    );
    const again = await box.waitFor(
      (line) => line.network?.address?.startsWith('10.78.0.'),
      'a lease in the new network',
      30_000,
      mark,
    );
    assert.is(again.network.gateway, '10.78.0.1');
  } finally {
    await box.stop();
    await router.stop();
    router = await startRouter('10.77.9.1', '10.77.9.100', '10.77.9.150');
  }
});

test('setup AP: address, dnsmasq lease with the box as router and DNS and option 114, captive DNS, portal on port 80; all gone when the AP stops', async () => {
  const box = await Box.start();
  const phone = startDhcpClient(PHONE, 'wlan0', writeClientScript(dir.path));
  const agent = await NamespaceAgent.start(PHONE);
  try {
    box.send({ do: 'softap', active: true });
    const lease = await phone.waitForLease(20_000);
    assert.match(lease.ip, /^192\.168\.4\.\d+$/);
    assert.is(lease.mask, 24);
    assert.is(lease.router, '192.168.4.1');
    assert.equal(lease.dns, ['192.168.4.1']);
    assert.is(lease.captivePortal, 'http://192.168.4.1/setup');
    const answer = await agent.dns('192.168.4.1', 'connectivitycheck.gstatic.com');
    assert.equal(
      answer.answers.map((a) => a.data),
      ['192.168.4.1'],
    );
    const page = await agent.fetch('http://192.168.4.1/setup');
    assert.is(page.status, 200);
    assert.is(page.body, 'portal /setup');
    assert.ok(inBox('-4', 'addr', 'show', 'dev', 'ethap0').includes('inet 192.168.4.1/24'));
    assert.match(
      inBox('link', 'show', 'dev', 'ethap0'),
      new RegExp(`link/ether ${SOFTAP_MAC}`),
      "the chip's soft-AP MAC",
    );
    const pidFile = join(dir.path, 'data', 'network', 'setup-ap-dnsmasq.pid');
    const firstPid = Number(readFileSync(pidFile, 'utf8').trim());
    assert.ok(firstPid > 0);
    // dnsmasq dies: it is started again, and phones still get leases.
    process.kill(firstPid, 'SIGKILL');
    await box.waitFor(
      (line) => /setup AP DHCP server \(dnsmasq\) is not running; starting it again/.test(line.log?.msg ?? ''),
      'the restart',
    );
    await waitForText(
      () => (readFileSync(pidFile, 'utf8').trim() === String(firstPid) ? '' : 'new'),
      /new/,
      'a new dnsmasq',
      10_000,
    );
    const pid = Number(readFileSync(pidFile, 'utf8').trim());

    const mark = box.lines.length;
    box.send({ do: 'softap', active: false });
    await box.waitFor(
      (line) => line.health?.detail !== undefined && !line.health.detail.includes('setup AP:'),
      'the setup AP part idle',
      10_000,
      mark,
    );
    assert.not.match(inBox('-4', 'addr', 'show', 'dev', 'ethap0'), /inet /);
    assert.not.ok(
      existsSync(`/proc/${pid}`) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dnsmasq'),
      'dnsmasq stopped',
    );
    const refused = await agent.dns('192.168.4.1', 'example.org', { timeoutMs: 500 }).then(
      () => 'answered',
      (error: Error) => error.message,
    );
    assert.ok(refused !== 'answered', 'no captive DNS after the AP stopped');
  } finally {
    await agent.stop();
    await phone.stop();
    await box.stop();
  }
});

test('mDNS: <hostname>.local answers with the station address on the home side and the setup address on the AP side', async () => {
  const box = await Box.start({ NESTBOX_HOSTNAME: 'testbox' });
  const home = await NamespaceAgent.start(ROUTER);
  const phoneSide = await NamespaceAgent.start(PHONE);
  const phone = startDhcpClient(PHONE, 'wlan0', writeClientScript(dir.path));
  try {
    box.send({ do: 'associated', mac: STATION_MAC });
    box.send({ do: 'softap', active: true });
    const leased = await box.waitFor((line) => line.network?.address, 'the station lease');
    await phone.waitForLease(20_000);
    await box.waitFor(
      (line) => line.log?.msg === 'mDNS announced' && line.log.addresses?.length === 2,
      'mDNS on both interfaces',
    );
    const fromHome = await home.mdns('testbox.local', { timeoutMs: 5000 });
    assert.equal(fromHome.addresses, [leased.network.address.split('/')[0]]);
    const fromPhone = await phoneSide.mdns('testbox.local', { timeoutMs: 5000 });
    assert.equal(fromPhone.addresses, ['192.168.4.1']);
    // On stop the responder says goodbye: the record again with TTL 0, so caches drop it at once.
    const listener = spawnIn(ROUTER, process.execPath, ['-e', GOODBYE_LISTENER]);
    await listener.waitForLine((line) => line === 'listening', 5000, 'the mDNS listener', true);
    await box.stop();
    const goodbye = JSON.parse(
      await listener.waitForLine(
        (line) => line.startsWith('{') && JSON.parse(line).ttl === 0,
        5000,
        'a goodbye for testbox.local',
        true,
      ),
    );
    assert.is(goodbye.data, leased.network.address.split('/')[0]);
    await listener.stop();
  } finally {
    await phone.stop();
    await home.stop();
    await phoneSide.stop();
    await box.stop();
  }
});

test('bad conditions: no DHCP server on the home network → degraded "no answer", and the lease comes once one answers', async () => {
  await router.stop();
  const box = await Box.start();
  try {
    box.send({ do: 'associated', mac: STATION_MAC });
    const failing = await box.waitFor(
      (line) => line.health?.status === 'degraded',
      'degraded without a DHCP server',
      20_000,
    );
    assert.match(failing.health.detail, /station: no answer from the home network's DHCP server/);
    assert.ok(
      box.lines.some((line) => line.log?.msg === 'no DHCP answer from the home network; the client keeps asking'),
      'a log line says so',
    );
    assert.not.ok(
      box.lines.some((line) => line.lease),
      'no lease',
    );
    // The manager drops a join that gets no address: the fault stays until an address comes.
    const mark = box.lines.length;
    box.send({ do: 'released' });
    const dropped = await box.waitFor(
      (line) => line.health && /the last join got no answer/.test(line.health.detail),
      'the fault kept after the release',
      10_000,
      mark,
    );
    assert.is(dropped.health.status, 'degraded');
    router = await startRouter('10.77.9.1', '10.77.9.100', '10.77.9.150');
    box.send({ do: 'associated', mac: STATION_MAC });
    await box.waitFor((line) => line.lease?.up === true, 'the lease once the server is back', 30_000);
    assert.is(box.health()?.status, 'ok');
  } finally {
    await box.stop();
  }
});

test('bad conditions: port 80 of the setup address taken → degraded with the reason, retried until it is free', async () => {
  const squatter = spawnIn(BOX, process.execPath, [
    '-e',
    "require('http').createServer().listen(80, '0.0.0.0', () => console.log('listening'))",
  ]);
  await squatter.waitForLine((line) => line === 'listening', 5000, 'the squatter', true);
  const box = await Box.start();
  try {
    box.send({ do: 'softap', active: true });
    const taken = await box.waitFor((line) => line.health?.status === 'degraded', 'degraded with port 80 taken');
    assert.match(taken.health.detail, /setup AP: port 80 on 192\.168\.4\.1 is taken by another program/);
    await squatter.stop();
    await box.waitFor(
      (line) =>
        /setup AP: 192\.168\.4\.1\/24 on ethap0, handing out leases/.test(line.health?.detail ?? '') &&
        line.health.status === 'ok',
      'up once the port is free',
      40_000,
    );
  } finally {
    await squatter.stop();
    await box.stop();
  }
});

test('bad conditions: a missing interface, a DHCP client or dnsmasq not installed → degraded with the reason, retried, no crash', async () => {
  const box = await Box.start(
    { NESTBOX_STA_IFACE: 'nosuch0', NESTBOX_AP_IFACE: 'ethap0' },
    { dnsmasq: '/nonexistent/dnsmasq' },
  );
  try {
    box.send({ do: 'associated', mac: STATION_MAC });
    const missing = await box.waitFor(
      (line) => line.health?.status === 'degraded' && /nosuch0 does not exist/.test(line.health.detail),
      'missing interface',
    );
    assert.match(missing.health.detail, /station: the station interface nosuch0 does not exist/);
    box.send({ do: 'softap', active: true });
    await box.waitFor(
      (line) => /phones get no address: \/nonexistent\/dnsmasq is not installed/.test(line.health?.detail ?? ''),
      'dnsmasq missing',
    );
    const restarts = box.lines.filter((line) =>
      /setup AP DHCP server \(dnsmasq\) is not running; starting it again/.test(line.log?.msg ?? ''),
    );
    assert.ok(restarts.length >= 1, 'retried');
    assert.is(box.process.child.exitCode, null, 'still running');
  } finally {
    await box.stop();
  }
  const noClient = await Box.start({}, { udhcpc: '/nonexistent/udhcpc' });
  try {
    noClient.send({ do: 'associated', mac: STATION_MAC });
    const health = await noClient.waitFor(
      (line) => line.health?.status === 'degraded' && /udhcpc is not installed/.test(line.health.detail),
      'udhcpc missing',
    );
    assert.match(health.health.detail, /^station: \/nonexistent\/udhcpc is not installed/);
  } finally {
    await noClient.stop();
  }
});

/** Prints every multicast A record for testbox.local it hears on the router's side, as JSON with its TTL. */
const GOODBYE_LISTENER = `
const dgram = require('node:dgram'), packet = require('dns-packet');
const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
socket.on('message', (message) => {
  try {
    for (const answer of packet.decode(message).answers || []) {
      if (answer.type === 'A' && answer.name.toLowerCase() === 'testbox.local') console.log(JSON.stringify({ ttl: answer.ttl, data: answer.data }));
    }
  } catch {}
});
socket.bind(5353, () => { socket.addMembership('224.0.0.251', '10.77.9.1'); console.log('listening'); });
`;

/** A PATH with the tools the layer and its event script run, and busybox but no udhcpc of its own. */
function busyboxOnlyPath(): string {
  const bin = join(dir.path, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const tool of ['ip', 'awk', 'dnsmasq', 'busybox']) {
    const found = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    if (!existsSync(join(bin, tool))) symlinkSync(found, join(bin, tool));
  }
  return bin;
}

async function waitForText(read: () => string, pattern: RegExp, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(read())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test.run();
