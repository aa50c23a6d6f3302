/**
 * An instance without a box (NESTBOX_COPROC=none), the whole daemon: no coprocessor link,
 * connectivity manager or network layer is built; /healthz and systemd STATUS= say so without
 * calling the instance degraded; the owner API's device routes answer 409; the social API works.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startSocialDaemon, type SocialHarness, type TestAccount } from './helpers/social.js';
import { startNotifyListener, type NotifyListener } from './helpers/notify-socket.js';

const NO_COPROCESSOR = 'no coprocessor (NESTBOX_COPROC=none)';

let h: SocialHarness;
let listener: NotifyListener;
let owner: TestAccount;
let alice: TestAccount;

test.before(async () => {
  listener = await startNotifyListener();
  h = await startSocialDaemon({ NESTBOX_COPROC: 'none', NOTIFY_SOCKET: listener.path });
  owner = await h.account('boss', { owner: true, scopes: 'read write admin:read admin:write' });
  alice = await h.account('alice');
});
test.after(async () => {
  await h?.stop();
  await listener?.close();
});

test('/healthz: the device components are off for want of a coprocessor, and the instance is ok', async () => {
  const { status, body } = await h.daemon.json('/healthz');
  assert.is(status, 200);
  assert.is(body.status, 'ok');
  for (const name of ['coprocessor', 'connectivity', 'firmware_release', 'network']) {
    assert.equal(body.components[name], { status: 'off', detail: NO_COPROCESSOR }, name);
  }
  assert.is(body.components.database.status, 'ok');
  assert.is(body.components.social.status, 'ok');
});

test('systemd STATUS= says the instance runs without a coprocessor, not that one is lost', async () => {
  const ready = await listener.waitFor((m) => m.READY === '1');
  assert.match(ready.STATUS ?? '', NO_COPROCESSOR);
  assert.not.match(ready.STATUS ?? '', /degraded|not answering|starting/);
});

test('no link and no connectivity manager run: none of their log lines appear', async () => {
  await h.daemon.waitForLog((line) => line.msg === 'ready');
  const deviceLines = h.daemon.logs.filter((line) => line.component === 'coproc' || line.component === 'connectivity');
  assert.equal(deviceLines, []);
});

test('the owner reads the state: no device, no link', async () => {
  const state = await h.api(owner.token, 'GET', '/api/nestbox/v1/state');
  assert.is(state.status, 200);
  assert.is(state.body.connectivity, 'no_device');
  assert.is(state.body.coprocessor.link, 'off');
  assert.is(state.body.coprocessor.transport, 'none');
});

const DEVICE_ROUTES: Array<[string, string, unknown?]> = [
  ['GET', '/networks'],
  ['POST', '/networks', { ssid: 'Home', password: 'correct horse' }],
  ['DELETE', '/networks/1'],
  ['PUT', '/networks/order', { ids: [] }],
  ['POST', '/setup_mode'],
  ['GET', '/setup_ap'],
  ['POST', '/scan'],
  ['PUT', '/tx_power', { dbm: 11 }],
  ['PUT', '/power_save', { mode: 'min_modem' }],
  ['POST', '/restart_coprocessor'],
  ['POST', '/firmware', 'not an image'],
];

test("the owner API's device routes answer 409 with the reason, and still only to the owner", async () => {
  for (const [method, path, body] of DEVICE_ROUTES) {
    const answer = await h.api(owner.token, method, `/api/nestbox/v1${path}`, body);
    assert.is(answer.status, 409, `${method} ${path}`);
    assert.equal(answer.body, { error: `This instance runs without a box: ${NO_COPROCESSOR}` }, `${method} ${path}`);
    assert.is((await h.api(null, method, `/api/nestbox/v1${path}`, body)).status, 401, `${method} ${path}`);
    assert.is((await h.api(alice.token, method, `/api/nestbox/v1${path}`, body)).status, 403, `${method} ${path}`);
  }
});

test('the setup portal is not there', async () => {
  assert.is((await h.api(null, 'GET', '/setup')).status, 404);
  assert.is((await h.api(owner.token, 'GET', '/setup/api/networks')).status, 404);
});

test('the social API works, and its counts reach the state', async () => {
  const posted = await h.api(alice.token, 'POST', '/api/v1/statuses', { status: 'hello from a server' });
  assert.is(posted.status, 200);
  const timeline = await h.api(alice.token, 'GET', '/api/v1/timelines/home');
  assert.is(timeline.status, 200);
  assert.equal(
    timeline.body.map((status: { id: string }) => status.id),
    [posted.body.id],
  );
  const deadline = Date.now() + 10_000;
  let statuses = 0;
  while (statuses < 1 && Date.now() < deadline) {
    statuses = (await h.api(owner.token, 'GET', '/api/nestbox/v1/state')).body.instance.statuses;
    if (statuses < 1) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.is(statuses, 1);
});

test.run();
