/**
 * The delivery queue on a real SQLite file against a real loopback receiver: it pauses while the
 * box is offline and resumes when it is back, keeps to its per-domain concurrency, retries a
 * failing peer with backoff and finally marks its domain unavailable.
 */
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Db } from '../../../daemon/store/db.js';
import { silentLogger } from '../../../daemon/log/logger.js';
import { PeerClient } from '../../../daemon/social/federation/net/client.js';
import { DeliveryQueue } from '../../../daemon/social/federation/delivery/queue.js';
import { SwitchableOnline, deviceOnline } from '../../../daemon/social/federation/delivery/online.js';
import { DeviceState, initialDeviceState } from '../../../daemon/device/state.js';
import { tempDir } from '../../helpers/paths.js';
import { eventually } from '../../helpers/federation.js';
import { openMigratedDatabase } from '../../helpers/migrated-database.js';

const { privateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const dir = tempDir();
let db: Db;
let server: http.Server;
let inbox = '';
let received: string[] = [];
let answer = 202;
const hold: Array<() => void> = [];
let holding = false;
let concurrent = 0;
let maxConcurrent = 0;

const quiet = silentLogger;

function queue(
  online: ConstructorParameters<typeof DeliveryQueue>[0]['online'],
  extra: Partial<ConstructorParameters<typeof DeliveryQueue>[0]> = {},
): DeliveryQueue {
  return new DeliveryQueue({
    db,
    online,
    log: quiet,
    client: new PeerClient({ allowPrivate: true, userAgent: 'test', timeoutMs: 5000 }),
    signingKey: async () => ({ keyId: 'http://127.0.0.1/users/sender#main-key', privateKeyPem: privateKey }),
    ...extra,
  });
}

test.before(async () => {
  db = await openMigratedDatabase(join(dir.path, 'queue.sqlite3'));
  await db.raw(
    `INSERT INTO accounts (id, username, uri, created_at, updated_at) VALUES (1, 'sender', 'http://127.0.0.1/users/sender', '2026-01-01', '2026-01-01')`,
  );
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      concurrent += 1;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      const finish = () => {
        concurrent -= 1;
        received.push(body);
        res.writeHead(answer).end();
      };
      if (holding) hold.push(finish);
      else finish();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  inbox = `http://127.0.0.1:${(server.address() as AddressInfo).port}/inbox`;
});

test.after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await db.destroy();
  dir.remove();
});

test('nothing is sent while offline; everything goes once online', async () => {
  received = [];
  const online = new SwitchableOnline(false);
  const q = queue(online);
  await q.start();
  await q.enqueue('1', [inbox], { type: 'Create', n: 1 });
  await q.enqueue('1', [inbox], { type: 'Create', n: 2 });
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.is(received.length, 0);
  assert.is(await q.repo.pending(), 2);
  online.set(true);
  await eventually('both deliveries', async () => received.length === 2);
  assert.is(await eventually('an empty queue', async () => (await q.repo.pending()) === 0), true);
  await q.stop();
});

test('requests to one peer never exceed the per-domain limit', async () => {
  received = [];
  holding = true;
  maxConcurrent = 0;
  const q = queue(new SwitchableOnline(true), { perDomain: 2 });
  await q.start();
  for (let n = 0; n < 6; n += 1) await q.enqueue('1', [inbox], { type: 'Like', n });
  await eventually('two held requests', async () => hold.length === 2);
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.is(hold.length, 2);
  holding = false;
  for (const release of hold.splice(0)) release();
  await eventually('all six', async () => received.length === 6);
  assert.is(maxConcurrent, 2);
  await q.stop();
});

test('a failing peer is retried with backoff, then its domain is marked unavailable', async () => {
  received = [];
  answer = 503;
  const q = queue(new SwitchableOnline(true), { retryBaseMs: 20, retryMaxMs: 40, maxAttempts: 3, giveUpAfterMs: 0 });
  await q.start();
  await q.enqueue('1', [inbox], { type: 'Create', n: 'doomed' });
  await eventually('three attempts', async () => received.length === 3);
  const domain = new URL(inbox).host;
  await eventually('the domain marked unavailable', () => q.repo.isUnavailable(domain));
  assert.is(await q.repo.pending(), 0);
  assert.is(await q.enqueue('1', [inbox], { type: 'Create', n: 'skipped' }), 0);
  answer = 202;
  await q.markAvailable(domain);
  assert.is(await q.enqueue('1', [inbox], { type: 'Create', n: 'back' }), 1);
  await eventually('delivery after the peer came back', async () => received.some((body) => body.includes('"back"')));
  await q.stop();
});

test('with DeviceState as the signal, deliveries wait until connectivity is connected', async () => {
  received = [];
  const device = new DeviceState(initialDeviceState('test', 'sim'));
  device.update({ connectivity: 'reconnecting' });
  const q = queue(deviceOnline(device));
  await q.start();
  await q.enqueue('1', [inbox], { type: 'Create', n: 'while reconnecting' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.is(received.length, 0);
  assert.is(q.status().paused, true);
  device.update({ connectivity: 'connected' });
  await eventually('the delivery once connected', async () => received.length === 1);
  device.update({ connectivity: 'setup_ap' });
  await q.enqueue('1', [inbox], { type: 'Create', n: 'in setup mode' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.is(received.length, 1);
  device.update({ connectivity: 'connected' });
  await eventually('the second delivery', async () => received.length === 2);
  await q.stop();
});

test('with the network layer on, deliveries wait for the station address as well', async () => {
  received = [];
  const device = new DeviceState(initialDeviceState('test', 'sim'));
  device.update({ connectivity: 'connected' });
  const q = queue(deviceOnline(device, true));
  await q.start();
  await q.enqueue('1', [inbox], { type: 'Create', n: 'connected, no address yet' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.is(received.length, 0);
  assert.is(q.status().paused, true);
  device.update({
    network: {
      address: '10.77.0.23/24',
      gateway: '10.77.0.1',
      dns: ['10.77.0.1'],
      mac: '02:00:00:00:00:01',
      lease_expires_at: null,
    },
  });
  await eventually('the delivery once the box has an address', async () => received.length === 1);
  await q.stop();
});

test.run();
