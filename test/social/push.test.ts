/**
 * Web Push: subscription API (policy, alerts, one per token) and delivery to a real HTTP endpoint
 * on loopback, encrypted to the subscriber's keys (decrypted here with http_ece), VAPID-signed;
 * an endpoint answering 410 loses its subscription. Endpoints on loopback need
 * NESTBOX_FEDERATION_ALLOW_PRIVATE (as federation tests do); without it, plain http and private
 * addresses are refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createECDH, createPublicKey, randomBytes, verify } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(buffer: Buffer, params: Record<string, unknown>): Buffer;
};

let h: SocialHarness;
let alice: TestAccount;
let bob: TestAccount;
let server: Server;
let endpointBase: string;
const received: Array<{ path: string; headers: Record<string, string | string[] | undefined>; body: Buffer }> = [];
/** Status codes the endpoint answers per path, one per request (the last one repeats); 201 by default. */
const answers = new Map<string, number[]>();

const receiver = createECDH('prime256v1');
receiver.generateKeys();
const authSecret = randomBytes(16);
const keys = { p256dh: receiver.getPublicKey().toString('base64url'), auth: authSecret.toString('base64url') };

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_FEDERATION_ALLOW_PRIVATE: 'true' });
  alice = await h.account('alice');
  bob = await h.account('bob');
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      const queue = answers.get(req.url!) ?? [201];
      res.writeHead(queue.length > 1 ? queue.shift()! : queue[0]).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpointBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after(async () => {
  await h?.stop();
  server?.close();
});

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out');
}

test('create, read, update and delete a subscription; an unknown policy is 422 and nothing is stored', async () => {
  const token = await h.token('alice', 'push');
  const bad = await h.api(token, 'POST', '/api/v1/push/subscription', {
    subscription: { endpoint: `${endpointBase}/x`, keys },
    data: { policy: 'friends' },
  });
  assert.is(bad.status, 422);
  assert.is((await h.api(token, 'GET', '/api/v1/push/subscription')).status, 404, 'nothing stored');
  assert.is(
    (
      await h.api(token, 'POST', '/api/v1/push/subscription', {
        subscription: { endpoint: `${endpointBase}/x`, keys: { p256dh: 'short', auth: keys.auth } },
      })
    ).status,
    422,
  );
  const created = await h.api(token, 'POST', '/api/v1/push/subscriptions', {
    subscription: { endpoint: `${endpointBase}/x`, keys },
    data: { policy: 'followed', alerts: { mention: true, favourite: 'true' } },
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.is(created.body.policy, 'followed');
  assert.is(created.body.alerts.mention, true);
  assert.is(created.body.alerts.favourite, true);
  assert.is(created.body.alerts.follow, false);
  const instance = await h.api(null, 'GET', '/api/v2/instance');
  assert.is(created.body.server_key, instance.body.configuration.vapid.public_key);
  const updated = await h.api(token, 'PUT', '/api/v1/push/subscription', {
    data: { policy: 'none', alerts: { follow: true } },
  });
  assert.is(updated.body.policy, 'none');
  assert.is(updated.body.alerts.follow, true);
  assert.is(updated.body.alerts.mention, true, 'alerts not given keep their value');
  assert.is((await h.api(token, 'PUT', '/api/v1/push/subscription', { data: { policy: 'bogus' } })).status, 422);
  assert.is((await h.api(token, 'GET', '/api/v1/push/subscription')).body.policy, 'none');
  assert.is((await h.api(token, 'DELETE', '/api/v1/push/subscription')).status, 200);
  assert.is((await h.api(token, 'GET', '/api/v1/push/subscription')).status, 404);
  assert.is(
    (await h.api(await h.token('alice', 'read write'), 'GET', '/api/v1/push/subscription')).status,
    403,
    'needs the push scope',
  );
});

test('a notification is delivered encrypted and VAPID-signed; the policy decides who may trigger it', async () => {
  const token = await h.token('alice', 'push');
  await h.api(token, 'POST', '/api/v1/push/subscription', {
    subscription: { endpoint: `${endpointBase}/alice`, keys, standard: true },
    data: { policy: 'followed', alerts: { favourite: true, follow: true } },
  });
  const status = (await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'push me' })).body.id;
  await h.api(bob.token, 'POST', `/api/v1/statuses/${status}/favourite`);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(
    received.filter((r) => r.path === '/alice'),
    [],
    'bob is not followed by alice: policy followed drops it',
  );
  await h.api(alice.token, 'POST', `/api/v1/accounts/${bob.id}/follow`);
  await h.api(bob.token, 'POST', `/api/v1/statuses/${status}/unfavourite`);
  await h.api(bob.token, 'POST', `/api/v1/statuses/${status}/favourite`);
  const push = await waitFor(() => received.find((r) => r.path === '/alice'));
  assert.is(push.headers['content-encoding'], 'aes128gcm');
  assert.match(String(push.headers.authorization), /^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]+$/);
  await assertVapidSigned(String(push.headers.authorization));
  assert.ok(Number(push.headers.ttl) > 0);
  const payload = JSON.parse(
    ece.decrypt(push.body, { version: 'aes128gcm', privateKey: receiver, authSecret: keys.auth }).toString(),
  );
  assert.is(payload.notification_type, 'favourite');
  assert.type(payload.notification_id, 'string');
  assert.match(payload.title, /bob favourited your post/);
});

/**
 * The VAPID header (RFC 8292): its key is the instance's public key, and the JWT's ES256 signature
 * verifies under it, so the key pair the box made at its first start is a matching P-256 pair.
 */
async function assertVapidSigned(authorization: string): Promise<void> {
  const [, jwt, k] = /^vapid t=(\S+), k=(\S+)$/.exec(authorization)!;
  const instance = await h.api(null, 'GET', '/api/v2/instance');
  assert.is(k, instance.body.configuration.vapid.public_key);
  const point = Buffer.from(k, 'base64url');
  assert.is(point.length, 65, 'an uncompressed P-256 point');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
    },
    format: 'jwk',
  });
  const [header, claims, signature] = jwt.split('.');
  const signed = Buffer.from(`${header}.${claims}`);
  const raw = Buffer.from(signature, 'base64url');
  assert.ok(verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, raw), 'the JWT verifies under k');
}

test('a delivery that meets a server error is retried', async () => {
  const token = await h.token('bob', 'push');
  answers.set('/flaky', [503, 201]);
  await h.api(token, 'POST', '/api/v1/push/subscription', {
    subscription: { endpoint: `${endpointBase}/flaky`, keys },
    data: { policy: 'all', alerts: { mention: true } },
  });
  await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'ping @bob' });
  await waitFor(() => received.filter((r) => r.path === '/flaky').length === 2, 6000);
  assert.is((await h.api(token, 'GET', '/api/v1/push/subscription')).status, 200, 'kept after a retried delivery');
  await h.api(token, 'DELETE', '/api/v1/push/subscription');
});

test('an endpoint answering 410 loses its subscription', async () => {
  const token = await h.token('bob', 'push');
  answers.set('/gone', [410]);
  await h.api(token, 'POST', '/api/v1/push/subscription', {
    subscription: { endpoint: `${endpointBase}/gone`, keys },
    data: { policy: 'all', alerts: { mention: true } },
  });
  await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'hey @bob' });
  await waitFor(() => received.find((r) => r.path === '/gone'));
  await waitFor(async () => (await h.api(token, 'GET', '/api/v1/push/subscription')).status === 404);
});

test('without allowPrivate, an endpoint on plain http or a private address is 422 and nothing is stored', async () => {
  const strict = await startSocialDaemon();
  try {
    await strict.account('carol');
    const token = await strict.token('carol', 'push');
    for (const endpoint of [
      `${endpointBase}/x`,
      'https://127.0.0.1/x',
      'https://192.168.1.10/push',
      'https://[::1]/x',
      'https://localhost/x',
      'https://[::ffff:10.0.0.1]/x',
    ]) {
      const refused = await strict.api(token, 'POST', '/api/v1/push/subscription', {
        subscription: { endpoint, keys },
      });
      assert.is(refused.status, 422, endpoint);
      assert.is(refused.body.error, 'Validation failed: Endpoint must be an https URL on a public address');
    }
    assert.is((await strict.api(token, 'GET', '/api/v1/push/subscription')).status, 404, 'nothing stored');
    const accepted = await strict.api(token, 'POST', '/api/v1/push/subscription', {
      subscription: { endpoint: 'https://push.example.net/send/abc', keys },
    });
    assert.is(accepted.status, 200);
    assert.is(accepted.body.endpoint, 'https://push.example.net/send/abc');
  } finally {
    await strict.stop();
  }
});

test.run();
