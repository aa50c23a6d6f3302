import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../daemon/config.js';
import { policyFromConfig } from '../../daemon/connectivity/policy.js';
import { startDaemon } from '../helpers/daemon.js';

test('the daemon serves the dashboard; setup portal and owner API stay closed without setup mode or owner token', async () => {
  const daemon = await startDaemon();
  try {
    assert.is((await daemon.json('/healthz')).body.status, 'ok');
    const dashboard = await daemon.fetch('/dashboard/');
    assert.is(dashboard.status, 200);
    assert.match(await dashboard.text(), /<title>Nestbox<\/title>/);
    for (const path of ['/setup', '/setup/api/status', '/setup/api/networks', '/generate_204']) {
      assert.is((await daemon.json(path)).status, 404, path);
    }
    const state = await daemon.json('/api/nestbox/v1/state');
    assert.equal([state.status, state.body], [401, { error: 'The access token is invalid' }]);
    assert.is((await daemon.json('/api/nestbox/v1/state', { headers: { Authorization: 'Bearer made-up' } })).status, 401);
  } finally {
    assert.is(await daemon.stop(), 0);
  }
});

test('connectivity config keys: defaults, and a clear refusal of bad values', () => {
  const config = loadConfig({ env: {} });
  assert.equal([config.reconnectDelayMs, config.coprocTimeScale, config.setupApAddress, config.setupDnsPort], [1000, 1, null, 53]);
  const scaled = loadConfig({ env: { NESTBOX_HEARTBEAT_S: '2', NESTBOX_COPROC_TIME_SCALE: '20', NESTBOX_SETUP_AP_ADDRESS: '192.168.4.1' } });
  assert.is(scaled.setupApAddress, '192.168.4.1');
  // The device clamps 2 s to 10 s; its clocks run 20 times faster than real time.
  assert.is(policyFromConfig(scaled).heartbeatExpectedMs, 500);
  for (const [name, value] of [['NESTBOX_SETUP_AP_ADDRESS', '300.1.1.1'], ['NESTBOX_SETUP_AP_ADDRESS', 'wlan0'], ['NESTBOX_COPROC_TIME_SCALE', '0'], ['NESTBOX_RECONNECT_DELAY_MS', '-5'], ['NESTBOX_SETUP_DNS_PORT', '70000']]) {
    assert.throws(() => loadConfig({ env: { [name]: value } }), (error: unknown) => error instanceof ConfigError && error.key === name);
  }
});

test.run();
