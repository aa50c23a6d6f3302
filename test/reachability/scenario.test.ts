/**
 * The box made reachable from the internet, end to end (root), in one virtual internet: the virtual
 * home behind a router that does NAT and runs miniupnpd, an internet with pebble, its DNS and a
 * dyndns2 provider. The owner enters a name and the box maps its ports, publishes its address, gets
 * a certificate and answers https://<name> from the internet; a peer follows an account through the
 * NAT; then the address changes, the certificate renews, the owner turns it off and on, the router
 * reboots and forgets its mappings, UPnP is turned off and a carrier-grade NAT stands in front. The
 * box asks the router every 3 s here (NESTBOX_REACHABILITY_CYCLE_S), so each change is followed
 * within seconds; the contract's limits (60 s, 15 s) are what the waits allow.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../daemon/config.js';
import { loadAdminTool, openAdminTool } from '../helpers/admin-tool.js';
import { startDaemon } from '../helpers/daemon.js';
import { bringOnline } from '../helpers/federation.js';
import { DYNDNS, INTERNET } from '../helpers/virtual-internet/index.js';
import {
  NAME,
  box,
  enterName,
  internet,
  until,
  useReachabilityScenario,
  view,
} from '../helpers/virtual-internet/scenario.js';
import { openStream } from '../helpers/virtual-internet/streaming.js';

/** Short-lived certificates from pebble: renewal falls due 20 s after issuance, while the tests go on. */
const CERTIFICATE_SECONDS = 30;
let firstExpiry = '';

useReachabilityScenario(CERTIFICATE_SECONDS);

test('a name entered by the owner: ports mapped, DNS updated, a certificate, https://<name> answers from the internet', async () => {
  const started = Date.now();
  await enterName(true);
  const done = await until(
    'the switch to https',
    async () => {
      const current = await view();
      const settled = current.steps.switch.state === 'ok' && current.steps.port_mapping.state === 'ok';
      return settled && current.external_address ? current : undefined;
    },
    90_000,
  );
  console.log(`name entered → switched: ${Date.now() - started} ms`);
  assert.equal(internet.forwardedPorts().sort(), [`tcp 443 -> ${box.address}:443`, `tcp 80 -> ${box.address}:80`]);
  assert.is(done.external_address, INTERNET.wan);
  assert.is(done.public_url, `https://${NAME}`);
  assert.ok(done.certificate?.not_after, 'the certificate expiry');
  firstExpiry = done.certificate.not_after;
  assert.ok(
    internet.dyndnsUpdates.some((u) => u.update === NAME && u.myip === INTERNET.wan && u.answer.startsWith('good')),
  );
  assert.not.match(JSON.stringify(done), DYNDNS.password);

  const agent = await internet.agent();
  const health = await healthzFromInternet(agent, 'https from the internet');
  assert.is(health.headers['strict-transport-security'], 'max-age=31536000');
  const components = JSON.parse(health.body).components;
  assert.is(components.reachability.status, 'ok', JSON.stringify(components.reachability));
  const plain = await agent.fetch(`http://${NAME}/about`, { redirect: 'manual' });
  assert.is(plain.status, 301);
  assert.is(plain.headers.location, `https://${NAME}/about`);
  const instance = JSON.parse((await agent.fetch(`https://${NAME}/api/v2/instance`)).body);
  assert.is(instance.domain, NAME);
});

test('streaming over HTTPS: the instance names wss://<name>, and a client on the internet receives a post as it is made', async () => {
  const agent = await internet.agent();
  const v1 = JSON.parse((await agent.fetch(`https://${NAME}/api/v1/instance`)).body);
  const v2 = JSON.parse((await agent.fetch(`https://${NAME}/api/v2/instance`)).body);
  assert.is(v1.urls.streaming_api, `wss://${NAME}`);
  assert.is(v2.configuration.urls.streaming, `wss://${NAME}`);
  const health = await agent.fetch(`https://${NAME}/api/v1/streaming/health`);
  assert.equal([health.status, health.body], [200, 'OK']);
  const token = await accountToken(box.daemon.dataDir, 'carol');
  const stream = await openStream(internet.inet, `wss://${NAME}/api/v1/streaming?stream=user`, token, internet.caFile);
  try {
    const post = await box.daemon.json('/api/v1/statuses', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'Streamed over wss through the NAT', visibility: 'public' }),
    });
    assert.is(post.status, 200, JSON.stringify(post.body));
    const update = await stream.next('update', 10_000);
    assert.equal(update.stream, ['user']);
    assert.is(JSON.parse(update.payload).uri, post.body.uri);
  } finally {
    await stream.close();
  }
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
  const current = await view();
  assert.is(current.name, NAME, 'a refused PUT changes nothing');
  assert.not.match(JSON.stringify(current), DYNDNS.password);
});

test('the external address changes: DNS follows within a minute and the box stays reachable', async () => {
  await internet.changeWanAddress('11.77.0.3');
  await until(
    'the dyndns2 update to the new address',
    async () => internet.dyndnsUpdates.find((u) => u.myip === '11.77.0.3' && u.answer.startsWith('good')),
    70_000,
  );
  const agent = await internet.agent();
  const answer = await healthzFromInternet(agent, 'https at the new address');
  assert.is(answer.status, 200);
  assert.is((await view()).external_address, '11.77.0.3');
});

test('a server on the internet follows an account on the box and receives its post, over HTTPS through the NAT', async () => {
  const agent = await internet.agent();
  const peer = await startDaemon({
    port: 80,
    startTimeoutMs: 30_000,
    within: { command: ['ip', 'netns', 'exec', internet.inet], fetch: (url, init) => agent.response(url, init) },
    env: {
      NESTBOX_HTTP_HOST: '0.0.0.0',
      NESTBOX_BASE_URL: 'http://peer.example.test',
      NESTBOX_FEDERATION_ALLOW_PRIVATE: 'true',
      NESTBOX_COPROC_TIME_SCALE: '20',
      NESTBOX_STABLE_S: '0',
      NODE_EXTRA_CA_CERTS: internet.caFile,
    },
  });
  try {
    await bringOnline(peer, 30_000);
    const alice = await accountToken(box.daemon.dataDir, 'alice');
    const bob = await accountToken(peer.dataDir, 'bob');
    const as = (who: string) => ({ headers: { authorization: `Bearer ${who}`, 'content-type': 'application/json' } });
    const found = await peer.json(
      `/api/v2/search?resolve=true&type=accounts&q=${encodeURIComponent(`@alice@${NAME}`)}`,
      as(bob),
    );
    assert.is(found.status, 200, JSON.stringify(found.body));
    const remote = found.body.accounts[0];
    assert.is(remote.acct, `alice@${NAME}`);
    assert.is(remote.url, `https://${NAME}/@alice`);
    const follow = await peer.json(`/api/v1/accounts/${remote.id}/follow`, { method: 'POST', ...as(bob) });
    assert.is(follow.status, 200, JSON.stringify(follow.body));
    await until(
      'the follow accepted',
      async () => {
        const relation = await peer.json(`/api/v1/accounts/relationships?id[]=${remote.id}`, as(bob));
        return relation.body[0]?.following === true;
      },
      30_000,
    );
    const post = await box.daemon.json('/api/v1/statuses', {
      method: 'POST',
      ...as(alice),
      body: JSON.stringify({ status: 'Hello from behind the NAT', visibility: 'public' }),
    });
    assert.is(post.status, 200, JSON.stringify(post.body));
    assert.match(post.body.uri, `https://${NAME}/users/alice/statuses/`);
    const arrived = await until(
      "the post in the follower's home timeline",
      async () => {
        const timeline = await peer.json('/api/v1/timelines/home', as(bob));
        return (timeline.body as Array<{ uri: string; content: string }>).find((s) => s.uri === post.body.uri);
      },
      30_000,
    );
    assert.match(arrived.content, 'Hello from behind the NAT');
  } finally {
    await peer.stop();
  }
});

test('the certificate is renewed at two thirds of its life, and the new one is served', async () => {
  const renewed = await until(
    'a renewed certificate',
    async () => {
      const current = await view();
      return current.certificate && current.certificate.not_after !== firstExpiry ? current.certificate : undefined;
    },
    40_000,
  );
  assert.ok(Date.parse(renewed.not_after) > Date.parse(firstExpiry));
  const answer = await (await internet.agent()).fetch(`https://${NAME}/healthz`);
  assert.is(answer.status, 200);
  const served = JSON.parse(answer.body).components.reachability.certificate_expires as string;
  assert.ok(Date.parse(served) >= Date.parse(renewed.not_after), 'the expiry in /healthz');
});

test('DELETE turns it off within 15 s: mappings removed, the home address back without a restart; a new PUT maps and switches again', async () => {
  const started = Date.now();
  const answer = await box.daemon.json('/api/nestbox/v1/reachability', box.owner({ method: 'DELETE' }));
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.ok(Date.now() - started < 15_000);
  assert.equal(internet.forwardedPorts(), []);
  // Only the social side is rebuilt: the box answers at once, with the home address.
  const off = await view();
  assert.is(off.name, null);
  assert.is(off.public_url, null);
  const instance = await box.daemon.json('/api/v2/instance');
  assert.is(instance.status, 200, JSON.stringify(instance.body));
  assert.is(instance.body.domain, 'nestbox.local');
  const health = (await box.daemon.json('/healthz')).body as { components: Record<string, { status: string }> };
  assert.is(health.components.reachability.status, 'off');
  await enterName(false);
  await until('the mappings again', async () => internet.forwardedPorts().length === 2, 30_000);
  // The name still points at the box and its certificate is in hand: the instance switches back.
  await until('the switch back to https', async () => (await view()).public_url === `https://${NAME}`, 30_000);
  const agent = await internet.agent();
  const again = await until(
    'the instance at its name from the internet',
    async () => {
      const reply = await agent.fetch(`https://${NAME}/api/v2/instance`);
      return reply.status === 200 ? reply : undefined;
    },
    20_000,
  );
  assert.is(JSON.parse(again.body).domain, NAME);
  // The device side ran on untouched through both switches: one start, one HTTP listener, still online.
  const logged = (msg: string) => box.daemon.logs.filter((line) => line.msg === msg).length;
  assert.is(logged('ready'), 1);
  assert.ok(logged('rebuilding the social side with the new public address') >= 3);
  const state = (await box.daemon.json('/api/nestbox/v1/state', box.owner())).body as { connectivity: string };
  assert.is(state.connectivity, 'connected');
});

test('the router reboots and forgets its mappings: they are back within a minute', async () => {
  await internet.rebootRouter();
  assert.equal(internet.forwardedPorts(), []);
  await until('the mappings again', async () => internet.forwardedPorts().length === 2, 60_000);
  assert.ok(internet.forwardedPorts().includes(`tcp 443 -> ${box.address}:443`));
});

test('UPnP turned off on the router: degraded, the forwarding to set up by hand, the address from the echo', async () => {
  await internet.rebootRouter(false);
  const failed = await until(
    'the mapping step failed',
    async () => {
      const current = await view();
      return current.steps.port_mapping.state === 'failed' ? current : undefined;
    },
    60_000,
  );
  assert.match(failed.steps.port_mapping.detail!, /neither UPnP nor NAT-PMP/);
  assert.is(failed.manual?.internal_address, box.address);
  assert.equal(failed.manual?.ports.map((p) => p.external).sort(), [443, 80]);
  // The router tells nothing: the external address comes from the address echo on the internet.
  const echoed = await until(
    'the external address from the echo',
    async () => {
      const current = await view();
      return current.external_address === internet.wanAddress ? current : undefined;
    },
    20_000,
  );
  assert.is(echoed.steps.port_mapping.state, 'failed');
  assert.ok(internet.echoes.includes(internet.wanAddress), JSON.stringify(internet.echoes));
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
    60_000,
  );
  assert.is(failed.steps.port_mapping.state, 'failed');
  // The echo sees the carrier's address: the name cannot point at it, and the DNS step says why.
  const judged = await until(
    'the DNS step on the carrier address',
    async () => {
      const current = await view();
      return current.external_address === INTERNET.carrierNat.wan && current.steps.dns.state === 'failed'
        ? current
        : undefined;
    },
    20_000,
  );
  assert.match(judged.steps.dns.detail!, /carrier-grade or double NAT/);
});

/** A new account on the box (the admin tool beside the running daemon) and a token for it. */
async function accountToken(dataDir: string, username: string): Promise<string> {
  const admin = await openAdminTool(loadAdminTool(), loadConfig({ env: { NESTBOX_DATA_DIR: dataDir } }));
  try {
    await admin.createAccount({ username, email: `${username}@example.test`, password: `pw-${username}-123` });
    return (await admin.token({ username, scopes: 'read write follow' })).accessToken;
  } finally {
    await admin.close();
  }
}

/** Waits until the box answers /healthz over https at its public name, from the internet side. */
function healthzFromInternet(agent: Awaited<ReturnType<typeof internet.agent>>, what: string) {
  return until(
    what,
    async () => {
      const reply = await agent.fetch(`https://${NAME}/healthz`);
      return reply.status === 200 ? reply : undefined;
    },
    20_000,
  );
}

test.run();
