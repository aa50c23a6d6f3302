import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../daemon/config.js';
import { policyFromConfig } from '../../daemon/connectivity/policy.js';
import { startDaemon } from '../helpers/daemon.js';

test('first boot opens the setup portal; once the box has joined the home network it closes again', async () => {
  // The embedded simulator, no saved network: setup mode at once. Joining HomeNet ends it.
  const daemon = await startDaemon({ env: { NESTBOX_STABLE_S: '0', NESTBOX_COPROC_TIME_SCALE: '20' } });
  try {
    const dashboard = await daemon.fetch('/dashboard/');
    assert.is(dashboard.status, 200);
    assert.match(await dashboard.text(), /<title>Nestbox<\/title>/);
    await waitFor(async () => (await daemon.json('/setup/api/status')).body.state === 'setup_ap');
    assert.is((await daemon.json('/healthz')).body.status, 'ok', 'setup mode is a state, not a fault');
    // The first scan runs while the setup AP comes up.
    await waitFor(async () =>
      (await daemon.json('/setup/api/networks')).body.some((n: { ssid: string }) => n.ssid === 'HomeNet'),
    );
    const connect = await daemon.json('/setup/api/connect', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ssid: 'HomeNet', password: 'nestbox-home-2024', hidden: false }),
    });
    assert.is(connect.status, 202);
    await waitFor(async () => (await daemon.json('/setup/api/status')).status === 404);
    for (const path of ['/setup', '/setup/api/status', '/setup/api/networks', '/generate_204']) {
      assert.is((await daemon.json(path)).status, 404, path);
    }
    const state = await daemon.json('/api/nestbox/v1/state');
    assert.equal([state.status, state.body], [401, { error: 'The access token is invalid' }]);
    assert.is(
      (await daemon.json('/api/nestbox/v1/state', { headers: { Authorization: 'Bearer made-up' } })).status,
      401,
    );
  } finally {
    assert.is(await daemon.stop(), 0);
  }
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('condition not reached in time');
}

test('connectivity config keys: defaults, and a clear refusal of bad values', () => {
  const config = loadConfig({ env: {} });
  assert.equal(
    [config.reconnectDelayMs, config.coprocTimeScale, config.setupApAddress, config.setupDnsPort],
    [1000, 1, null, 53],
  );
  const scaled = loadConfig({
    env: { NESTBOX_HEARTBEAT_S: '2', NESTBOX_COPROC_TIME_SCALE: '20', NESTBOX_SETUP_AP_ADDRESS: '192.168.4.1' },
  });
  assert.is(scaled.setupApAddress, '192.168.4.1');
  // The device clamps 2 s to 10 s; its clocks run 20 times faster than real time.
  assert.is(policyFromConfig(scaled).heartbeatExpectedMs, 500);
  for (const [name, value] of [
    ['NESTBOX_SETUP_AP_ADDRESS', '300.1.1.1'],
    ['NESTBOX_SETUP_AP_ADDRESS', 'wlan0'],
    ['NESTBOX_COPROC_TIME_SCALE', '0'],
    ['NESTBOX_RECONNECT_DELAY_MS', '-5'],
    ['NESTBOX_SETUP_DNS_PORT', '70000'],
  ]) {
    assert.throws(
      () => loadConfig({ env: { [name]: value } }),
      (error: unknown) => error instanceof ConfigError && error.key === name,
    );
  }
});

test.run();
