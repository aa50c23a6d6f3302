/**
 * The owner's reachability API is served from the daemon's first answer: the flow is built before
 * the owner's routes are mounted and started after the HTTP step. An HTTPS port another program
 * holds leaves the box without an HTTPS listener, never without its start or its API.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:net';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let owner: TestAccount;
let holder: Server;
let takenPort: number;

test.before(async () => {
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  takenPort = (holder.address() as { port: number }).port;
  h = await startSocialDaemon({ NESTBOX_HTTPS_PORT: String(takenPort), NESTBOX_PORT_MAPPING: 'off' });
  owner = await h.account('boss', { owner: true, scopes: 'admin:read admin:write' });
});
test.after(async () => {
  await h.stop();
  await new Promise<void>((resolve) => holder.close(() => resolve()));
});

test('an HTTPS port already taken: the daemon starts, says so, and the owner reads the flow, not set up', async () => {
  const failed = await h.daemon.waitForLog((line) => line.msg === 'HTTPS listener did not start');
  assert.is(failed.port, takenPort);
  const answer = await h.api(owner.token, 'GET', '/api/nestbox/v1/reachability');
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.equal([answer.body.name, answer.body.public_url], [null, null]);
  const health = (await h.daemon.json('/healthz')).body;
  assert.equal(health.components.reachability.status, 'off');
  assert.match(health.components.reachability.detail, /not set up/);
  assert.is((await h.api(null, 'GET', '/api/nestbox/v1/reachability')).status, 401);
});

test.run();
