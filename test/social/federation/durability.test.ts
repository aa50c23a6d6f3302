/**
 * The delivery queue survives a power cut: with the follower's server down, posts wait in the
 * queue; the sender is killed (SIGKILL) and both come back at the same addresses; everything
 * queued is delivered after the restart.
 */
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SocialHarness, TestAccount } from '../../helpers/social.js';
import { domainOf, eventually, resolveAccount, startFederatedDaemon } from '../../helpers/federation.js';

let A: SocialHarness;
let B: SocialHarness;
const dirs: string[] = [];

test.after(async () => {
  await Promise.all([A?.stop(), B?.stop()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test('a daemon killed mid-delivery delivers everything after restart', async () => {
  [A, B] = await Promise.all([
    startFederatedDaemon({ keepDataDir: true }),
    startFederatedDaemon({ keepDataDir: true }),
  ]);
  dirs.push(A.daemon.dataDir, B.daemon.dataDir);
  const alice: TestAccount = await A.account('alice');
  const bob: TestAccount = await B.account('bob');
  const aliceOnB = await resolveAccount(B, bob.token, `alice@${domainOf(A)}`);
  await B.api(bob.token, 'POST', `/api/v1/accounts/${aliceOnB.id}/follow`);
  await eventually(
    'the follow',
    async () => (await B.api(bob.token, 'GET', `/api/v1/accounts/relationships?id[]=${aliceOnB.id}`)).body[0].following,
  );

  const bAddress = { port: B.daemon.port, dataDir: B.daemon.dataDir };
  await B.stop();
  const uris: string[] = [];
  for (const text of ['first while away', 'second while away', 'third while away']) {
    uris.push((await A.api(alice.token, 'POST', '/api/v1/statuses', { status: text })).body.uri);
  }
  await A.daemon.waitForLog((line) => line.msg === 'delivery failed; will retry');
  const aAddress = { port: A.daemon.port, dataDir: A.daemon.dataDir };
  await A.admin.close();
  await A.daemon.stop('SIGKILL');

  B = await startFederatedDaemon(bAddress);
  A = await startFederatedDaemon(aAddress);
  const arrived = await eventually(
    'all three posts on B',
    async () => {
      const list = (await B.api(bob.token, 'GET', `/api/v1/accounts/${aliceOnB.id}/statuses`)).body as any[];
      return uris.every((uri) => list.some((s) => s.uri === uri)) ? list : null;
    },
    15_000,
  );
  assert.is(arrived.filter((s: any) => uris.includes(s.uri)).length, 3);
});

test.run();
