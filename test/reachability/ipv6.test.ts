/**
 * The box reachable over IPv6 (root), in a virtual internet whose links carry IPv6: the home
 * router routes a global /64 (and a ULA /64) that its dnsmasq advertises on the LAN, and its
 * firewall drops what comes in from the internet unless a pinhole miniupnpd opened lets it through.
 * The box publishes its stable global address as AAAA beside the A record, opens ports 443 and 80
 * with PCP, and answers https://<name> over IPv6; once it has no IPv6 address the provider is told
 * to remove the AAAA record (an empty `myipv6`); turned off, the pinholes go and the firewall
 * drops again; behind carrier-grade NAT it is reachable over IPv6, with a name that has only AAAA,
 * and degraded for IPv4 alone.
 */
import { execFileSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DYNDNS, INTERNET } from '../helpers/virtual-internet/index.js';
import { getOverIpv6 } from '../helpers/virtual-internet/ipv6-get.js';
import {
  NAME,
  box,
  enterName,
  home,
  internet,
  until,
  useReachabilityScenario,
  view,
} from '../helpers/virtual-internet/scenario.js';

useReachabilityScenario(3600, { ipv6: true });

const V6_ONLY_NAME = 'v6only.example.test';
let stable = '';

/** The box's IPv6 addresses on its station interface, as `ip` shows them: address and flags. */
function boxAddresses(): Array<{ address: string; temporary: boolean }> {
  const out = execFileSync(
    'ip',
    ['-n', home.names.box, '-6', '-o', 'addr', 'show', 'dev', 'ethsta0', 'scope', 'global'],
    {
      encoding: 'utf8',
    },
  );
  return [...out.matchAll(/inet6 ([0-9a-f:]+)\/\d+ .*$/gm)].map((m) => ({
    address: m[1],
    temporary: / temporary /.test(m[0]),
  }));
}

test('IPv6 from the home network: AAAA beside A (the stable address), pinholes for 443 and 80, https://<name> answers over IPv6', async () => {
  const started = Date.now();
  await enterName(true);
  const done = await until(
    'reachable over both families',
    async () => {
      const current = await view();
      return current.steps.switch.state === 'ok' &&
        current.families?.ipv4.state === 'ok' &&
        current.families?.ipv6.state === 'ok'
        ? current
        : undefined;
    },
    90_000,
  );
  console.log(`name entered → reachable over IPv4 and IPv6: ${Date.now() - started} ms`);
  const addresses = boxAddresses();
  // SLAAC gave the box a stable and a temporary address in the home /64, and one in the ULA /64.
  assert.ok(
    addresses.some((a) => a.temporary && a.address.startsWith('2001:db8:77:1:')),
    JSON.stringify(addresses),
  );
  assert.ok(
    addresses.some((a) => a.address.startsWith('fd77:')),
    JSON.stringify(addresses),
  );
  stable = addresses.find((a) => !a.temporary && a.address.startsWith('2001:db8:77:1:'))!.address;
  assert.is(done.ipv6_address, stable);
  assert.is(done.external_address, INTERNET.wan);
  assert.match(done.steps.port_mapping.detail!, /PCP/);
  assert.match(done.steps.dns.detail!, stable);
  assert.ok(
    internet.dyndnsUpdates.some((u) => u.myip === `${INTERNET.wan},${stable}` && u.answer.startsWith('good')),
    JSON.stringify(internet.dyndnsUpdates),
  );
  assert.equal(internet.pinholes().sort(), [`tcp 443 -> [${stable}]`, `tcp 80 -> [${stable}]`]);
  assert.is(internet.forwardedPorts().length, 2, 'IPv4 forwarding as before');

  const answer = getOverIpv6(internet.inet, `https://${NAME}/api/v2/instance`, internet.caFile);
  assert.is(answer.status, 200, answer.body);
  assert.is(answer.remote, stable);
  assert.is(JSON.parse(answer.body).domain, NAME);
  const plain = getOverIpv6(internet.inet, `http://${NAME}/about`, internet.caFile);
  assert.is(plain.status, 301);
});

/** The name's AAAA records in the public DNS, as a resolver on the internet answers them. */
function publicAaaa(name: string): string[] {
  const script =
    `require('node:dns').promises.resolve6(${JSON.stringify(name)})` +
    '.then((a) => console.log(JSON.stringify(a)), (e) => console.log(JSON.stringify(e.code)))';
  const answer = JSON.parse(
    execFileSync('ip', ['netns', 'exec', internet.inet, process.execPath, '-e', script], { encoding: 'utf8' }),
  ) as string[] | string;
  if (answer === 'ENODATA' || answer === 'ENOTFOUND') return [];
  if (typeof answer === 'string') throw new Error(`AAAA lookup of ${name}: ${answer}`);
  return answer;
}

/** Router advertisements on the box's station interface taken (SLAAC) or ignored. */
function acceptRouterAdvertisements(on: boolean): void {
  execFileSync('ip', [
    'netns',
    'exec',
    home.names.box,
    'sysctl',
    '-q',
    '-w',
    `net.ipv6.conf.ethsta0.accept_ra=${on ? 1 : 0}`,
  ]);
}

test('the box loses its IPv6 address: the provider is told to remove the AAAA record, IPv6 says "not published"; it comes back', async () => {
  assert.equal(publicAaaa(NAME), [stable]);
  acceptRouterAdvertisements(false);
  execFileSync('ip', ['-n', home.names.box, '-6', 'addr', 'flush', 'dev', 'ethsta0', 'scope', 'global']);
  const gone = await until(
    'the AAAA record withdrawn',
    async () => {
      const current = await view();
      return current.families?.ipv6.detail?.includes('was removed') ? current : undefined;
    },
    30_000,
  );
  assert.equal(gone.families!.ipv6, {
    state: 'off',
    detail: `not published: the home network gives the box no global IPv6 address; the AAAA record for ${stable} was removed`,
  });
  assert.is(gone.ipv6_address, null);
  assert.is(gone.families!.ipv4.state, 'ok', 'IPv4 goes on');
  assert.is(gone.steps.dns.state, 'ok', gone.steps.dns.detail!);
  const withdrawal = internet.dyndnsUpdates.filter((u) => u.myipv6 === '');
  assert.equal(
    withdrawal.map((u) => [u.myip, u.answer]),
    [[INTERNET.wan, `good ${INTERNET.wan}`]],
    'one update: myip with the IPv4 address alone and an empty myipv6',
  );
  assert.equal(publicAaaa(NAME), [], 'the public DNS has no AAAA record for the name');
  const answer = await (await internet.agent()).fetch(`https://${NAME}/api/v2/instance`);
  assert.is(answer.status, 200, 'still reachable over IPv4');

  acceptRouterAdvertisements(true);
  const back = await until(
    'IPv6 published again',
    async () => {
      const current = await view();
      return current.families?.ipv6.state === 'ok' ? current : undefined;
    },
    30_000,
  );
  stable = back.ipv6_address!;
  assert.equal(publicAaaa(NAME), [stable]);
  assert.is(internet.dyndnsUpdates.filter((u) => u.myipv6 === '').length, 1, 'withdrawn once');
});

/** The nftables handles of the router's IPv6 pinhole rules: a renewed pinhole is a new rule. */
function pinholeHandles(): string[] {
  const out = execFileSync(
    'ip',
    ['netns', 'exec', home.names.home, 'nft', '-a', 'list', 'chain', 'inet', 'filter', 'miniupnpd'],
    {
      encoding: 'utf8',
    },
  );
  return [...out.matchAll(/@nh,192,128 .* # handle (\d+)/g)].map((m) => m[1]);
}

test('renewed, then turned off: the pinholes are deleted and the router firewall drops IPv6 from the internet again', async () => {
  // Deleting must work after a renewal too (miniupnpd 2.3.1 refuses it after extending a pinhole).
  const before = pinholeHandles();
  await until('a renewal of the pinholes', async () => pinholeHandles().every((h) => !before.includes(h)), 15_000);
  assert.is(internet.pinholes().length, 2);
  const answer = await box.daemon.json('/api/nestbox/v1/reachability', box.owner({ method: 'DELETE' }));
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(internet.pinholes(), []);
  assert.throws(() => getOverIpv6(internet.inet, `http://[${stable}]/healthz`, internet.caFile, 1500), /timed out/);
  // From the home network the box still answers over IPv6: only the router's firewall closed.
  const inside = await (await home.agent('home')).fetch(`http://[${stable}]/healthz`);
  assert.is(inside.status, 200);
});

test('carrier-grade NAT with IPv6: a name with only AAAA gets its certificate over IPv6 and is reachable; degraded for IPv4 only', async () => {
  const started = Date.now();
  await internet.changeWanAddress(INTERNET.carrierNat.wan, 24, INTERNET.carrierNat.isp);
  await internet.rebootRouter(true);
  const put = await box.daemon.json(
    '/api/nestbox/v1/reachability',
    box.owner({
      method: 'PUT',
      body: JSON.stringify({
        name: V6_ONLY_NAME,
        dyndns: {
          protocol: 'dyndns2',
          url: `http://${DYNDNS.name}:${DYNDNS.port}/nic/update`,
          username: DYNDNS.user,
          password: DYNDNS.password,
        },
      }),
    }),
  );
  assert.is(put.status, 202, JSON.stringify(put.body));
  const done = await until(
    'switched over IPv6',
    async () => {
      const current = await view();
      return current.public_url === `https://${V6_ONLY_NAME}` && current.families?.ipv4.state === 'failed'
        ? current
        : undefined;
    },
    60_000,
  );
  console.log(`carrier-grade NAT, new name → switched over IPv6: ${Date.now() - started} ms`);
  assert.is(done.families?.ipv6.state, 'ok', JSON.stringify(done.families));
  assert.match(done.families!.ipv4.detail!, /carrier-grade/);
  assert.is(done.steps.port_mapping.state, 'ok', done.steps.port_mapping.detail!);
  assert.is(done.steps.dns.state, 'ok');
  assert.match(done.steps.certificate.detail!, /HTTP-01/);
  // Only the IPv6 address went to the provider: the name has an AAAA record and no A record.
  assert.ok(
    internet.dyndnsUpdates.some((u) => u.update === V6_ONLY_NAME && u.myip === stable),
    JSON.stringify(internet.dyndnsUpdates),
  );
  assert.not.ok(internet.dyndnsUpdates.some((u) => u.update === V6_ONLY_NAME && u.myip.includes('.')));
  assert.ok(internet.pinholes().includes(`tcp 443 -> [${stable}]`));

  const answer = getOverIpv6(internet.inet, `https://${V6_ONLY_NAME}/api/v2/instance`, internet.caFile);
  assert.is(answer.status, 200, answer.body);
  assert.is(JSON.parse(answer.body).domain, V6_ONLY_NAME);
  const health = (await box.daemon.json('/healthz')).body as {
    components: Record<string, { status: string; detail: string }>;
  };
  assert.is(health.components.reachability.status, 'degraded');
  assert.match(health.components.reachability.detail, /IPv4: .*carrier-grade/);
  assert.match(health.components.reachability.detail, /over IPv6 only/);
});

test('a clean stop deletes the pinholes', async () => {
  assert.is(internet.pinholes().length, 2);
  assert.is(await home.stopDaemon(), 0);
  assert.equal(internet.pinholes(), []);
});

test.run();
