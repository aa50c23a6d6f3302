/**
 * The owner's appliance API in the whole daemon: tokens come from the instance's OAuth store (the
 * owner is the account that may hold admin scopes), and a firmware upload goes through the
 * connectivity manager to the embedded simulator, which reboots into the new image.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let owner: TestAccount;
let alice: TestAccount;

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_COPROC_TIME_SCALE: '20' });
  owner = await h.account('boss', { owner: true, scopes: 'read write admin:read admin:write' });
  alice = await h.account('alice');
});
test.after(async () => {
  await h.stop();
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in time`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('the owner token reads the device state; other tokens are refused', async () => {
  const state = await h.api(owner.token, 'GET', '/api/nestbox/v1/state');
  assert.is(state.status, 200);
  assert.ok(['starting', 'connecting', 'setup_ap'].includes(state.body.connectivity), state.body.connectivity);
  assert.is((await h.api(alice.token, 'GET', '/api/nestbox/v1/state')).status, 403);
  assert.is((await h.api(null, 'GET', '/api/nestbox/v1/state')).status, 401);
  const readOnly = await h.token('boss', 'admin:read');
  assert.is((await h.api(readOnly, 'POST', '/api/nestbox/v1/setup_mode')).status, 403);
});

test('the instance counts reach the device state when people post', async () => {
  assert.is((await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'hello from the box' })).status, 200);
  const instance = await until('the counts', async () => {
    const { body } = await h.api(owner.token, 'GET', '/api/nestbox/v1/state');
    return body.instance.statuses >= 1 ? body.instance : undefined;
  });
  assert.is(instance.accounts, 2);
});

test('a firmware upload through the owner API is written to the coprocessor, which reboots into it', async () => {
  const image = new Uint8Array(9_000).fill(3);
  image[0] = 0xe9; // the ESP image magic byte
  const response = await fetch(`${h.url}/api/nestbox/v1/firmware`, {
    method: 'POST',
    body: image,
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/octet-stream' },
  });
  assert.is(response.status, 202);
  const ota = await until(
    'the update to finish',
    async () => {
      const { body } = await h.api(owner.token, 'GET', '/api/nestbox/v1/state');
      return ['done', 'failed'].includes(body.coprocessor.ota.phase) ? body.coprocessor.ota : undefined;
    },
    20_000,
  );
  assert.equal([ota.phase, ota.bytes, ota.percent], ['done', 9_000, 100]);
  assert.ok(h.daemon.logs.some((line) => line.msg === 'coprocessor initialised' && h.daemon.logs.indexOf(line) > 0));
});

test.run();
