import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWebFixture, type WebFixture } from './web-fixture.js';
import { utf8, waitFor } from './connectivity-fixture.js';

const HOME = { ssid: utf8('Home'), password: 'correct horse', channel: 6, rssi: -60, security: 'wpa2_psk' as const };
let f: WebFixture;

test.before(async () => {
  f = await startWebFixture({
    prepare: async (coproc) => {
      coproc.air.push(HOME);
    },
  });
  await waitFor(() => f.device.get().softap.active, 'setup mode');
});
test.after(async () => {
  await f.closeAll();
});

const owner = { token: 'owner-token' };
const send = (method: string, path: string, body?: unknown, token = 'owner-token') =>
  f.json(`/api/nestbox/v1${path}`, { method, token, body: body === undefined ? undefined : JSON.stringify(body) });

test('the owner API needs the owner token: 401 without, 403 for other accounts, admin:write to change', async () => {
  assert.is((await f.json('/api/nestbox/v1/state')).status, 401);
  assert.is((await f.json('/api/nestbox/v1/state', { token: 'guest-token' })).status, 403);
  assert.is((await f.json('/api/nestbox/v1/state', { token: 'owner-read-token' })).status, 200);
  assert.is((await send('POST', '/networks', { ssid: 'x', password: '' }, 'owner-read-token')).status, 403);
  const { status, body } = await f.json('/api/nestbox/v1/state', owner);
  assert.is(status, 200);
  assert.is(body.connectivity, 'setup_ap');
  assert.is(body.wifi.mac, '24:0a:c4:12:ab:cd');
});

test('saved networks: add, list without passwords, reorder, remove', async () => {
  const a = await send('POST', '/networks', { ssid: 'Attic "5G" #2', password: 'p"a#s s\\word' });
  assert.is(a.status, 201);
  const b = await send('POST', '/networks', { ssid_hex: 'ff4e6574', password: '', hidden: true });
  assert.is(b.status, 201);
  assert.is(b.body.ssid, 'ÿNet'); // not UTF-8: read as Latin-1
  const list = await send('GET', '/networks');
  assert.equal(
    list.body.map((n: any) => [n.ssid, n.position, n.has_password]),
    [
      ['Attic "5G" #2', 1, true],
      ['ÿNet', 2, false],
    ],
  );
  assert.not.match(JSON.stringify(list.body), /a#s/);
  assert.not.ok('password' in list.body[0] || 'passphrase' in list.body[0]);
  const reordered = await send('PUT', '/networks/order', { ids: [b.body.id, a.body.id] });
  assert.is(reordered.status, 200);
  assert.equal(
    reordered.body.map((n: any) => n.id),
    [b.body.id, a.body.id],
  );
  assert.is((await send('PUT', '/networks/order', { ids: [a.body.id] })).status, 422);
  assert.is((await send('PUT', '/networks/order', { ids: 'nope' })).status, 422);
  assert.is((await send('DELETE', `/networks/${a.body.id}`)).status, 200);
  assert.is((await send('DELETE', `/networks/${a.body.id}`)).status, 404);
  assert.is((await send('DELETE', '/networks/abc')).status, 404);
  assert.is((await send('POST', '/networks', { ssid: 'Home', password: 'short' })).status, 422);
  assert.not.match(JSON.stringify(f.logs), /p"a#s/);
});

test('setup AP name and key are shown to the owner; setup mode can be entered', async () => {
  const { body } = await send('GET', '/setup_ap');
  assert.equal(body, { ssid: 'Nestbox-ABCD', passphrase: f.passphrase, active: true });
  assert.is((await send('POST', '/setup_mode')).status, 202);
});

test('tx power and power save through the API, with clear refusals', async () => {
  const ok = await send('PUT', '/tx_power', { dbm: 11 });
  assert.equal([ok.status, ok.body], [200, { dbm: 11 }]);
  assert.is((await send('PUT', '/tx_power', { dbm: 30 })).status, 422);
  assert.is((await send('PUT', '/tx_power', { dbm: 'loud' })).status, 422);
  const ps = await send('PUT', '/power_save', { mode: 'max_modem' });
  assert.equal([ps.status, ps.body], [200, { mode: 'max_modem' }]);
  assert.is((await send('PUT', '/power_save', { mode: 'turbo' })).status, 422);
  const refused = await send('PUT', '/power_save', { mode: 'none' });
  assert.is(refused.status, 502);
  assert.match(refused.body.error, /refused/);
});

test('firmware upload: checked, written with progress, the device reboots and is re-initialised', async () => {
  const upload = (body: Uint8Array, type = 'application/octet-stream') =>
    f.json('/api/nestbox/v1/firmware', {
      method: 'POST',
      token: 'owner-token',
      body,
      headers: { 'Content-Type': type },
    });
  assert.is((await upload(new Uint8Array([0xe9, 1]), 'text/plain')).status, 415);
  const wrong = await upload(new Uint8Array(100));
  assert.is(wrong.status, 422);
  assert.match(wrong.body.error, /not an ESP32 firmware image/);
  assert.is((await upload(new Uint8Array(0))).status, 422);
  const image = new Uint8Array(10_500).fill(7);
  image[0] = 0xe9;
  const accepted = await upload(image);
  assert.is(accepted.status, 202);
  await waitFor(() => f.device.get().coprocessor.ota.phase === 'done', 'the update to finish after the reboot');
  assert.is(f.coproc.calls.filter((c) => c === 'otaWrite').length, 3);
  assert.equal(
    f.events.filter((e) => e.name === 'ota_progress').map((e) => e.payload.percent),
    [0, 38, 76, 100],
  );
  assert.ok(f.events.some((e) => e.name === 'coprocessor_reset'));
});

test('the state stream sends the state at once and again on every change', async () => {
  const controller = new AbortController();
  const response = await fetch(`${f.url}/api/nestbox/v1/stream?access_token=owner-token`, {
    signal: controller.signal,
  });
  assert.is(response.headers.get('content-type'), 'text/event-stream');
  const reader = response.body!.getReader();
  let text = '';
  const readUntil = async (pattern: RegExp) => {
    while (!pattern.test(text)) text += new TextDecoder().decode((await reader.read()).value);
  };
  await readUntil(/event: state\ndata: \{.*"connectivity"/);
  f.device.update({ coprocessor: { heartbeat_number: 4242 } });
  await readUntil(/"heartbeat_number":4242/);
  controller.abort();
  assert.is((await f.json('/api/nestbox/v1/stream')).status, 401);
});

test.run();
