import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { startWebFixture } from './web-fixture.js';
import { utf8, waitFor } from './connectivity-fixture.js';

const HOME = { ssid: utf8('Home'), password: 'correct horse', channel: 6, rssi: -60, security: 'wpa2_psk' as const };
const CAFE = { ssid: utf8('Café <b>'), password: '', channel: 1, rssi: -40, security: 'open' as const };
/** "Café-Gast" as an access point set up in Latin-1 sends it: not valid UTF-8. */
const LATIN1 = {
  ssid: Uint8Array.from(Buffer.from('Caf\xe9-Gast', 'latin1')),
  password: 'gast-passwort',
  channel: 11,
  rssi: -50,
  security: 'wpa2_psk' as const,
};
const withAir = async (coproc: { air: unknown[] }) => {
  coproc.air.push(HOME, CAFE);
};

test('in setup mode the page and the scan list answer without login, strongest first, with signal and security', async () => {
  const f = await startWebFixture({ prepare: withAir });
  try {
    await waitFor(() => f.device.get().softap.active, 'setup mode');
    const page = await f.json('/setup');
    assert.is(page.status, 200);
    assert.match(page.headers.get('content-type')!, /text\/html/);
    assert.match(page.headers.get('cache-control')!, /no-store/);
    assert.match(page.body, /Set up your Nestbox/);
    const { status, body } = await f.json('/setup/api/networks');
    assert.is(status, 200);
    assert.equal(
      body.map((n: any) => [n.ssid, n.rssi, n.security, n.channel]),
      [
        ['Café <b>', -40, 'open', 1],
        ['Home', -60, 'wpa2_psk', 6],
      ],
    );
    assert.is(body[1].ssid_hex, '486f6d65');
    const scans = f.coproc.calls.filter((c) => c === 'scan').length;
    await f.json('/setup/api/networks?refresh=1');
    assert.is(f.coproc.calls.filter((c) => c === 'scan').length, scans + 1);
  } finally {
    await f.closeAll();
  }
});

test('a network name that is not UTF-8 reads as Latin-1 in the list, the status and the log; its bytes join it', async () => {
  const f = await startWebFixture({ prepare: async (coproc) => void coproc.air.push(LATIN1) });
  try {
    await waitFor(() => f.device.get().softap.active, 'setup mode');
    const { body: list } = await f.json('/setup/api/networks');
    assert.equal(
      list.map((n: any) => [n.ssid, n.ssid_hex]),
      [['Café-Gast', '436166e92d47617374']],
    );
    const accepted = await f.json('/setup/api/connect', {
      method: 'POST',
      body: JSON.stringify({ ssid: list[0].ssid, ssid_hex: list[0].ssid_hex, password: LATIN1.password }),
    });
    assert.is(accepted.status, 202);
    assert.is(accepted.body.ssid, 'Café-Gast');
    await waitFor(() => f.device.get().connectivity === 'connected', 'connected');
    assert.equal([...f.coproc.station!.ssid], [...LATIN1.ssid]);
    const { body } = await f.json('/setup/api/status');
    assert.is(body.ssid, 'Café-Gast');
    const named = f.logs.filter((line) => line.msg === 'network submitted' || line.msg === 'connecting');
    assert.ok(named.length >= 2);
    for (const line of named) assert.is(line.ssid, 'Café-Gast');
  } finally {
    await f.closeAll();
  }
});

test('POST /setup/api/connect answers 202, the box joins while the AP stays up, and status says so', async () => {
  const f = await startWebFixture({ prepare: withAir });
  try {
    await waitFor(() => f.device.get().softap.active, 'setup mode');
    f.coproc.phones = [{ mac: '11:22:33:44:55:66', rssi: -30 }];
    const accepted = await f.json('/setup/api/connect', {
      method: 'POST',
      body: JSON.stringify({ ssid: 'Home', password: HOME.password, hidden: false }),
    });
    assert.is(accepted.status, 202);
    await waitFor(() => f.device.get().connectivity === 'connected', 'connected');
    const { body } = await f.json('/setup/api/status');
    assert.equal(
      { state: body.state, ssid: body.ssid, error: body.error },
      { state: 'connected', ssid: 'Home', error: null },
    );
    assert.is(body.dashboard_url, 'http://nestbox.test/dashboard');
    assert.ok(body.setup_ap.active);
  } finally {
    await f.closeAll();
  }
});

test('online, the setup AP stays while a person uses the portal and closes when it is idle, the phone still on it', async () => {
  const IDLE_MS = 800;
  const f = await startWebFixture({ prepare: withAir, policy: { portalIdleMs: IDLE_MS } });
  try {
    await waitFor(() => f.device.get().softap.active, 'setup mode');
    f.coproc.phones = [{ mac: '11:22:33:44:55:66', rssi: -30 }];
    await waitFor(() => f.device.get().softap.stations.length === 1, 'the phone in the state');
    await f.json('/setup/api/connect', {
      method: 'POST',
      body: JSON.stringify({ ssid: 'Home', password: HOME.password, hidden: false }),
    });
    // The setup page polls the status while the box joins, as a person's phone would; a slow join
    // must not count as the person having left.
    const deadline = Date.now() + 5000;
    while (f.device.get().connectivity !== 'connected') {
      assert.ok(Date.now() < deadline, 'connected within 5 s');
      assert.is((await f.json('/setup/api/status')).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The person reads the result page for a while: each request holds the AP again.
    const until = Date.now() + 2 * IDLE_MS;
    let lastRequest = 0;
    while (Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 4));
      assert.ok(f.device.get().softap.active, 'the setup AP closed under a person using the portal');
      assert.is(f.device.get().softap.stations.length, 1);
      // The box counts from when the request reached it: no earlier than it was sent.
      const sent = Date.now();
      assert.is((await f.json('/setup/api/status')).status, 200);
      lastRequest = sent;
    }
    await waitFor(() => !f.device.get().softap.active, 'the setup AP closed', 5000);
    const after = Date.now() - lastRequest;

    assert.ok(after >= IDLE_MS - 50, `closed ${after} ms after the last request`);
    assert.is((await f.json('/setup/api/status')).status, 404);
  } finally {
    await f.closeAll();
  }
});

test('a wrong password shows as the auth error on the status API, in words', async () => {
  const f = await startWebFixture({ prepare: withAir });
  try {
    await waitFor(() => f.device.get().softap.active, 'setup mode');
    await f.json('/setup/api/connect', {
      method: 'POST',
      body: JSON.stringify({ ssid: 'Home', password: 'not the password' }),
    });
    await waitFor(() => f.connectivity.portal.status().error !== null, 'a failure');
    const { body } = await f.json('/setup/api/status');
    assert.is(body.error, 'auth');
    assert.match(body.error_description, /refused the password/);
    assert.is(body.state, 'setup_ap');
  } finally {
    await f.closeAll();
  }
});

test('what a person types is checked with a clear message: password length, ASCII, SSID bytes', async () => {
  const f = await startWebFixture();
  try {
    await waitFor(() => f.device.get().softap.active, 'setup mode');
    const post = (body: unknown) => f.json('/setup/api/connect', { method: 'POST', body: JSON.stringify(body) });
    const short = await post({ ssid: 'Home', password: 'short' });
    assert.is(short.status, 422);
    assert.match(short.body.error, /8 to 63 characters/);
    assert.ok(short.body.details.password);
    assert.not.match(JSON.stringify(short.body), /short"/);
    assert.is((await post({ ssid: 'Home', password: 'pässwörd-long' })).status, 422);
    assert.is((await post({ ssid: 'x'.repeat(33), password: '' })).status, 422);
    assert.is((await post({ ssid_hex: '0000', password: '' })).status, 422);
    assert.is((await post({ password: 'whatever1' })).status, 422);
    assert.is((await post({ ssid: 'Home', password: 'a'.repeat(64) })).status, 202, '64 hex digits are a raw key');
    assert.is(
      (await post({ ssid: 'Hidden one', password: ' "#\\\'$`;&|<>{}', hidden: true })).status,
      202,
      'special characters pass',
    );
    const bad = await f.json('/setup/api/connect', {
      method: 'POST',
      body: '{"ssid": ',
      headers: { 'Content-Type': 'application/json' },
    });
    assert.is(bad.status, 400);
  } finally {
    await f.closeAll();
  }
});

test('outside setup mode the portal answers 404, unless the owner token is presented', async () => {
  const f = await startWebFixture({
    prepare: async (coproc, networks) => {
      await withAir(coproc);
      await networks.save({ ssid: HOME.ssid, passphrase: HOME.password, hidden: false }, false);
    },
  });
  try {
    // Under load the first connect may outlast the 150 ms grace period; setup mode then lasts until the
    // connection is stable (its reason clears), and its soft AP may still be starting when connected.
    await waitFor(
      () =>
        f.device.get().connectivity === 'connected' &&
        !f.connectivity.portal.inSetupMode() &&
        f.connectivity.portal.status().setup_ap.reason === null,
      'connected, out of setup mode',
    );
    for (const path of ['/setup', '/setup/api/status', '/setup/api/networks']) {
      assert.is((await f.json(path)).status, 404, path);
      assert.is((await f.json(path, { token: 'guest-token' })).status, 404, `${path} with a non-owner token`);
      assert.is((await f.json(path, { token: 'owner-token' })).status, 200, `${path} with the owner token`);
    }
    assert.is((await f.json('/setup/api/status', { token: 'nonsense' })).status, 401);
    assert.is((await f.json('/setup/api/connect', { method: 'POST', body: '{}' })).status, 404);
    assert.is(
      (await f.json('/setup/api/connect', { method: 'POST', token: 'owner-read-token', body: '{}' })).status,
      404,
    );
    assert.is((await f.json('/generate_204')).status, 404);
  } finally {
    await f.closeAll();
  }
});

test('captive-portal probes of iOS, Android and Windows, and the front page, are redirected to the portal, never cached', async () => {
  const f = await startWebFixture();
  try {
    await waitFor(() => f.device.get().softap.active, 'setup mode');
    for (const path of ['/generate_204', '/hotspot-detect.html', '/connecttest.txt', '/ncsi.txt', '/redirect', '/']) {
      const { status, headers } = await f.json(path);
      assert.is(status, 302, path);
      assert.is(headers.get('location'), `http://127.0.0.1:${f.port}/setup`);
      assert.match(headers.get('cache-control')!, /no-cache/);
    }
  } finally {
    await f.closeAll();
  }
});

function getWithHost(port: number, host: string, path: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: host } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode!, location: res.headers.location });
    });
    req.on('error', reject);
    req.end();
  });
}

test('with the soft-AP address configured any other Host is redirected to the portal on that address', async () => {
  const f = await startWebFixture({ apAddress: '127.0.0.1' });
  try {
    await waitFor(() => f.device.get().softap.active, 'setup mode');
    assert.equal(await getWithHost(f.port, 'connectivitycheck.gstatic.com', '/generate_204'), {
      status: 302,
      location: 'http://127.0.0.1/setup',
    });
    assert.equal(await getWithHost(f.port, 'www.example.org', '/some/page'), {
      status: 302,
      location: 'http://127.0.0.1/setup',
    });
    assert.is((await getWithHost(f.port, '127.0.0.1', '/setup')).status, 200);
    assert.is((await getWithHost(f.port, '127.0.0.1', '/setup/api/status')).status, 200);
  } finally {
    await f.closeAll();
  }
});

test('without login the portal answers only requests that arrive on the soft-AP address', async () => {
  // The server listens on 127.0.0.1 only; the soft AP is said to be ::1, so nothing arrives there.
  const f = await startWebFixture({ apAddress: '::1' });
  try {
    await waitFor(() => f.device.get().softap.active, 'setup mode');
    assert.is((await f.json('/setup/api/status')).status, 404);
    assert.is(
      (await f.json('/setup/api/connect', { method: 'POST', body: JSON.stringify({ ssid: 'x', password: '' }) }))
        .status,
      404,
    );
    assert.is((await f.json('/setup/api/status', { token: 'owner-token' })).status, 200);
    assert.is((await f.json('/')).status, 404, 'the front page from the home side is not the portal');
  } finally {
    await f.closeAll();
  }
});

test.run();
