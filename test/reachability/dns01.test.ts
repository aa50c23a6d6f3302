/**
 * Port 80 blocked by the internet provider (root, in the virtual internet): with HTTP-01 the only
 * way to prove the name, the certificate step says the port is blocked and what does without it;
 * with the owner's own DNS server (knotd, taking RFC 2136 updates signed with TSIG, delegated to by
 * the public resolver pebble asks), the box publishes its address there and proves the name with
 * DNS-01: a certificate comes, and https://<name> answers from the internet with port 80 still shut.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { INTERNET } from '../helpers/virtual-internet/index.js';
import { OWNER_DNS } from '../helpers/virtual-internet/owner-dns.js';
import {
  box,
  enterName,
  enterSettings,
  internet,
  until,
  useReachabilityScenario,
  view,
} from '../helpers/virtual-internet/scenario.js';

const ZONE = 'owner.example.test';
const OWNER_NAME = `social.${ZONE}`;
const KEY = { name: 'nestbox-box', algorithm: 'hmac-sha256', secret: randomBytes(32).toString('base64') };

useReachabilityScenario(3600, { ownerDns: { zone: ZONE, key: KEY } });

test('port 80 blocked by the provider, HTTP-01 the only way: degraded, and the reason says so and names DNS-01', async () => {
  internet.blockInboundPort(80);
  await enterName(true);
  const failed = await until(
    'the certificate step failed',
    async () => {
      const current = await view();
      return current.steps.certificate.state === 'failed' ? current : undefined;
    },
    90_000,
  );
  // The router did its part: the block is the provider's.
  assert.is(failed.steps.port_mapping.state, 'ok', failed.steps.port_mapping.detail ?? '');
  assert.is(failed.steps.dns.state, 'ok', failed.steps.dns.detail ?? '');
  const detail = failed.steps.certificate.detail ?? '';
  assert.match(detail, /could not connect to the box on port 80/, detail);
  assert.match(detail, /internet provider may be blocking it/);
  assert.match(detail, /DNS-01/);
  assert.is(failed.public_url, null, 'no switch without a certificate');
  const health = (await box.daemon.json('/healthz')).body as {
    components: Record<string, { status: string; detail: string }>;
  };
  assert.is(health.components.reachability.status, 'degraded');
  assert.match(health.components.reachability.detail, /port 80/);
  const instance = await box.daemon.json('/api/v2/instance');
  assert.is(instance.body.domain, 'nestbox.local', 'the instance keeps its home address');
});

test("the owner's own DNS server: the address published with RFC 2136, DNS-01 issues the certificate, https://<name> answers with port 80 still blocked", async () => {
  const serialBefore = await internet.ownerDns!.knot.serial();
  await enterSettings({
    name: OWNER_NAME,
    dyndns: {
      protocol: 'rfc2136',
      server: internet.ownerDns!.server,
      zone: ZONE,
      key_name: KEY.name,
      key_algorithm: KEY.algorithm,
      key_secret: KEY.secret,
    },
  });
  const done = await until(
    'the switch to https://<owner name>',
    async () => {
      const current = await view();
      return current.steps.switch.state === 'ok' && current.public_url === `https://${OWNER_NAME}`
        ? current
        : undefined;
    },
    90_000,
  );
  assert.match(done.steps.certificate.detail!, /name proved with DNS-01/);
  assert.match(done.steps.dns.detail!, new RegExp(`points to ${INTERNET.wan.replace(/\./g, '\\.')}`));
  assert.not.match(JSON.stringify(done), KEY.secret);
  assert.equal((done as { dyndns?: unknown }).dyndns, { protocol: 'rfc2136', server: internet.ownerDns!.server });
  assert.ok((await internet.ownerDns!.knot.serial()) > serialBefore, "the owner's zone was updated");

  // Everyone on the internet resolves the name through the delegation to the owner's server.
  const agent = await internet.agent();
  const answer = await agent.dns(OWNER_DNS.resolver, OWNER_NAME);
  assert.equal(
    answer.answers.filter((record) => record.type === 'A').map((record) => record.data),
    [INTERNET.wan],
  );
  const health = await until(
    `https://${OWNER_NAME} from the internet`,
    async () => {
      const reply = await agent.fetch(`https://${OWNER_NAME}/healthz`);
      return reply.status === 200 ? reply : undefined;
    },
    20_000,
  );
  assert.is(JSON.parse(health.body).components.reachability.status, 'ok');
  // Port 80 is still shut from outside: only 443 carried the check.
  const plain = await agent
    .fetch(`http://${OWNER_NAME}/`, { redirect: 'manual', timeoutMs: 1500 })
    .catch((e: Error) => e);
  assert.instance(plain, Error, 'port 80 stays blocked');
});

test.run();
