/**
 * The router side of reachability (root): the router reboots and forgets the box's mappings,
 * UPnP is turned off, a carrier-grade NAT stands in front. Each is reported in plain words and
 * followed by the box within a minute.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INTERNET } from '../helpers/virtual-internet/index.js';
import {
  NAME,
  box,
  enterName,
  internet,
  until,
  useReachabilityScenario,
  view,
} from '../helpers/virtual-internet/scenario.js';

const CERTIFICATE_SECONDS = 3600;

useReachabilityScenario(CERTIFICATE_SECONDS);

test('the owner enters a name: the router forwards 443 and 80 to the box', async () => {
  await enterName(false);
  await until('the mappings', async () => internet.forwardedPorts().length === 2, 30_000);
  assert.equal(internet.forwardedPorts().sort(), [`tcp 443 -> ${box.address}:443`, `tcp 80 -> ${box.address}:80`]);
  const current = await view();
  assert.is(current.steps.port_mapping.state, 'ok');
  assert.is(current.external_address, INTERNET.wan);
});

test('the owner API: owner only, bad input refused with the field, secrets never returned', async () => {
  const anonymous = await box.daemon.json('/api/nestbox/v1/reachability');
  assert.is(anonymous.status, 401);
  for (const body of [{ name: 'nestbox.local' }, { name: 'a.example.org', dyndns: { protocol: 'rfc2136' } }]) {
    const refused = await box.daemon.json(
      '/api/nestbox/v1/reachability',
      box.owner({ method: 'PUT', body: JSON.stringify(body) }),
    );
    assert.is(refused.status, 422, JSON.stringify(refused.body));
    assert.ok(refused.body.error && refused.body.details, JSON.stringify(refused.body));
  }
  assert.is((await view()).name, NAME, 'a refused PUT changes nothing');
});

test('DELETE turns it off within 15 s: the mappings are removed, and a new PUT maps them again', async () => {
  const started = Date.now();
  const answer = await box.daemon.json('/api/nestbox/v1/reachability', box.owner({ method: 'DELETE' }));
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.ok(Date.now() - started < 15_000);
  assert.equal(internet.forwardedPorts(), []);
  assert.is((await view()).name, null);
  const health = (await box.daemon.json('/healthz')).body as { components: Record<string, { status: string }> };
  assert.is(health.components.reachability.status, 'off');
  await enterName(false);
  await until('the mappings again', async () => internet.forwardedPorts().length === 2, 30_000);
});

test('the router reboots and forgets its mappings: they are back within a minute', async () => {
  await internet.rebootRouter();
  assert.equal(internet.forwardedPorts(), []);
  await until('the mappings again', async () => internet.forwardedPorts().length === 2, 65_000);
  assert.ok(internet.forwardedPorts().includes(`tcp 443 -> ${box.address}:443`));
});

test('UPnP turned off on the router: degraded, with the forwarding to set up by hand', async () => {
  await internet.rebootRouter(false);
  const failed = await until(
    'the mapping step failed',
    async () => {
      const current = await view();
      return current.steps.port_mapping.state === 'failed' ? current : undefined;
    },
    65_000,
  );
  assert.match(failed.steps.port_mapping.detail!, /neither UPnP nor NAT-PMP/);
  assert.is(failed.manual?.internal_address, box.address);
  assert.equal(failed.manual?.ports.map((p) => p.external).sort(), [443, 80]);
  const health = (await box.daemon.json('/healthz')).body as { components: Record<string, { status: string }> };
  assert.is(health.components.reachability.status, 'degraded');
});

test('carrier-grade NAT in front of the router: degraded, and the reason says so', async () => {
  await internet.changeWanAddress(INTERNET.carrierNat.wan, 24, INTERNET.carrierNat.isp);
  await internet.rebootRouter(true);
  const failed = await until(
    'the carrier-grade NAT reason',
    async () => {
      const current = await view();
      return /carrier-grade/.test(current.steps.port_mapping.detail ?? '') ? current : undefined;
    },
    65_000,
  );
  assert.is(failed.steps.port_mapping.state, 'failed');
  assert.is(failed.external_address, null);
});

test.run();
