import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CommandError } from '../../daemon/connectivity/command-error.js';
import { startManagerFixture, utf8, waitFor } from './connectivity-fixture.js';
import type { CoprocTestDouble } from './coproc-test-double.js';
import type { NetworksRepo } from '../../daemon/connectivity/networks-repo.js';

const HOME = {
  ssid: utf8('Home "Net" #1'),
  password: 'p@ss "word" #\\ x',
  channel: 11,
  rssi: -48,
  security: 'wpa2_psk' as const,
};
const homeInRangeAndSaved = async (coproc: CoprocTestDouble, networks: NetworksRepo) => {
  coproc.air.push(HOME);
  await networks.save({ ssid: HOME.ssid, passphrase: HOME.password, hidden: false }, false);
};

/** Only a neighbour's network on the air; the saved home network is out of range. */
const neighbourInRangeHomeSaved = async (coproc: CoprocTestDouble, networks: NetworksRepo) => {
  coproc.air.push({ ...HOME, ssid: utf8('Neighbour') });
  await networks.save({ ssid: HOME.ssid, passphrase: HOME.password, hidden: false }, false);
};

test('first boot with no saved network: heartbeats on, setup AP with WPA2, MAC-derived SSID and the setup passphrase', async () => {
  const f = await startManagerFixture();
  try {
    await waitFor(() => f.device.get().softap.active, 'the setup AP');
    assert.is(f.device.get().connectivity, 'setup_ap');
    assert.equal(f.coproc.heartbeat, { enabled: true, periodS: 10 });
    assert.is(f.coproc.softAp!.ssid, 'Nestbox-ABCD');
    assert.is(f.coproc.softAp!.security, 'wpa2_psk');
    assert.is(f.coproc.softAp!.password, f.passphrase);
    assert.ok(f.events.some((e) => e.name === 'setup_ap_started'));
    assert.is(f.device.get().wifi.mac, '24:0a:c4:12:ab:cd');
    const transition = f.logs.find((l) => l.msg.includes('→ setup_ap'));
    assert.is(transition?.cause, 'no saved network');
    assert.is(f.device.get().softap.reason, 'no saved network');
    assert.is(f.connectivity.portal.status().setup_ap.reason, 'no saved network');
  } finally {
    await f.close();
  }
});

test('credentials submitted in setup mode connect while the AP stays up; the AP stops once stable', async () => {
  const f = await startManagerFixture({}, async (coproc) => {
    coproc.air.push(HOME);
  });
  try {
    await waitFor(() => f.device.get().softap.active, 'the setup AP');
    assert.is(f.coproc.softAp!.channel, 11, 'the AP takes the channel of the likely home network');
    await f.connectivity.portal.submitNetwork({ ssid: HOME.ssid, passphrase: HOME.password, hidden: false });
    await waitFor(() => f.device.get().connectivity === 'connected', 'connected');
    assert.ok(f.device.get().softap.active, 'the AP is still up right after joining');
    assert.is(f.device.get().wifi.ssid, 'Home "Net" #1');
    await waitFor(() => !f.device.get().softap.active, 'the AP to stop');
    assert.ok(f.events.some((e) => e.name === 'setup_ap_stopped'));
    const [saved] = await f.networks.list();
    assert.ok(saved.lastSuccessAt);
    assert.not.match(JSON.stringify(f.logs), /p@ss/);
  } finally {
    await f.close();
  }
});

test('a person at the setup portal keeps the AP up after the box joins, until their phone leaves', async () => {
  const f = await startManagerFixture({}, async (coproc) => {
    coproc.air.push(HOME);
  });
  try {
    await waitFor(() => f.device.get().softap.active, 'the setup AP');
    f.coproc.phones = [{ mac: '11:22:33:44:55:66', rssi: -40 }];
    await waitFor(() => f.device.get().softap.stations.length === 1, 'the phone to be seen');
    // What the web layer reports for each request from the AP side.
    f.connectivity.portal.portalUsed();
    await f.connectivity.portal.submitNetwork({ ssid: HOME.ssid, passphrase: HOME.password, hidden: false });
    await waitFor(() => f.device.get().connectivity === 'connected', 'connected');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(f.device.get().softap.active);
    assert.not.ok(f.coproc.calls.includes('stopSoftAp'));
    f.coproc.phones = [];
    f.coproc.emit('softApStationDisconnected', { mac: '11:22:33:44:55:66', reason: 8 });
    await waitFor(() => !f.device.get().softap.active, 'the AP to stop after the phone left');
  } finally {
    await f.close();
  }
});

test('a wrong password is told apart (auth), counted, and after the limit flagged instead of retried forever', async () => {
  const f = await startManagerFixture({}, async (coproc, networks) => {
    coproc.air.push(HOME);
    await networks.save({ ssid: HOME.ssid, passphrase: 'wrong-password', hidden: false }, false);
  });
  try {
    await waitFor(() => f.connectivity.portal.status().error === 'auth', 'the auth error');
    assert.match(f.device.get().error!, /refused the password/);
    for (let tries = 0; !(await f.networks.list())[0].passwordRefused; tries += 1) {
      if (tries > 300) throw new Error('the network was never flagged');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await waitFor(() => f.device.get().softap.active, 'fallback once every password was refused');
    const [network] = await f.networks.list();
    assert.is(network.authFailures, 2);
    const connects = f.coproc.calls.filter((c) => c === 'connectAp').length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.is(
      f.coproc.calls.filter((c) => c === 'connectAp').length,
      connects,
      'no more attempts with a refused password',
    );
  } finally {
    await f.close();
  }
});

test('a network out of range is reported as not_found', async () => {
  const f = await startManagerFixture({}, neighbourInRangeHomeSaved);
  try {
    await waitFor(() => f.connectivity.portal.status().error === 'not_found', 'not_found');
    assert.is(f.connectivity.portal.status().ssid, 'Home "Net" #1');
  } finally {
    await f.close();
  }
});

/** The fixture's database closed under the runner while it retries a network out of range: its next connect fails. */
async function connectAfterDatabaseCloses(outage?: (error: unknown) => string | null) {
  const f = await startManagerFixture({}, neighbourInRangeHomeSaved, outage);
  try {
    await waitFor(() => f.connectivity.portal.status().error === 'not_found', 'not_found');
    await f.db.destroy();
    const failedConnect = (line: { msg: string; effect?: unknown }) =>
      line.effect === 'connect' && line.msg.startsWith('connectivity operation');
    await waitFor(() => f.logs.some(failedConnect), 'a failed connect');
    return f.logs.filter(failedConnect);
  } finally {
    await f.close();
  }
}

test('a connect that meets a database outage is one warning naming it; any other failure is an error with its stack', async () => {
  const outages = await connectAfterDatabaseCloses(() => 'the database does not answer');
  assert.equal(
    { level: outages[0]?.level, msg: outages[0]?.msg, reason: outages[0]?.reason, error: outages[0]?.error },
    {
      level: 'warn',
      msg: 'connectivity operation did not run',
      reason: 'the database does not answer',
      error: undefined,
    },
  );
  const faults = await connectAfterDatabaseCloses(() => null);
  assert.is(faults[0]?.level, 'error');
  assert.is(faults[0]?.msg, 'connectivity operation failed');
  assert.ok(JSON.stringify(faults[0]?.error).includes('stack'), 'the error is logged with its stack');
});

test('AP gone → disconnected event, reconnecting, fallback after the grace period; AP back → connected, setup AP stops', async () => {
  const f = await startManagerFixture({}, homeInRangeAndSaved);
  try {
    // Connected and settled: on a loaded machine the first connect can outlast the grace period,
    // and then the setup AP rightly stays until the connection has been stable for a while.
    await waitFor(
      () =>
        f.device.get().connectivity === 'connected' &&
        f.connectivity.portal.status().setup_ap.reason === null &&
        !f.device.get().softap.active,
      'connected, no setup mode',
    );
    f.coproc.air.length = 0;
    f.coproc.dropStation(200);
    assert.is(f.device.get().connectivity, 'reconnecting');
    assert.equal(f.events.find((e) => e.name === 'disconnected')?.payload.reason, 200);
    await waitFor(() => f.device.get().softap.active, 'fallback');
    assert.is(f.device.get().connectivity, 'setup_ap');
    f.coproc.air.push(HOME);
    await waitFor(() => f.device.get().connectivity === 'connected', 'reconnected from setup mode');
    await waitFor(() => !f.device.get().softap.active, 'the AP to stop');
  } finally {
    await f.close();
  }
});

test('heartbeats stop → device_lost and /healthz-degraded; the device answers again → re-initialised', async () => {
  const f = await startManagerFixture(
    { heartbeatExpectedMs: 40, heartbeatMisses: 2, deviceProbeMs: 40 },
    homeInRangeAndSaved,
  );
  try {
    await waitFor(() => f.device.get().connectivity === 'connected', 'connected');
    f.coproc.answering = false;
    await waitFor(() => f.device.get().connectivity === 'device_lost', 'device_lost');
    assert.is(f.health.get('connectivity')?.status, 'degraded');
    f.coproc.answering = true;
    f.coproc.emit('heartbeat', { number: 7 });
    await waitFor(() => f.device.get().connectivity === 'connected', 'connected again');
    assert.is(f.health.get('connectivity')?.status, 'ok');
    assert.is(f.device.get().coprocessor.heartbeat_number, 7);
  } finally {
    await f.close();
  }
});

test('a reset during setup re-applies the configuration and brings the setup AP back', async () => {
  const f = await startManagerFixture();
  try {
    await f.connectivity.commands.setTxPower(15);
    await waitFor(() => f.device.get().softap.active, 'the setup AP');
    f.coproc.reboot();
    assert.ok(f.events.some((e) => e.name === 'coprocessor_reset'));
    f.coproc.txQuarterDbm = 80;
    await waitFor(() => f.coproc.softAp !== null && f.coproc.heartbeat.enabled, 'AP and heartbeats back');
    assert.is(f.coproc.txQuarterDbm, 60, 'the stored transmit power is applied again');
    assert.is(f.device.get().connectivity, 'setup_ap');
  } finally {
    await f.close();
  }
});

test('tx power and power save are applied, read back into the state, and refused clearly when out of range', async () => {
  const f = await startManagerFixture();
  try {
    await waitFor(() => f.device.get().connectivity === 'setup_ap', 'started');
    assert.is(await f.connectivity.commands.setTxPower(8.5), 8.5);
    assert.is(f.device.get().coprocessor.tx_power_dbm, 8.5);
    await f.connectivity.commands.setPowerSave('max_modem');
    assert.is(f.device.get().coprocessor.power_save, 'max_modem');
    const tooHigh = await f.connectivity.commands.setTxPower(40).catch((e) => e);
    assert.instance(tooHigh, CommandError);
    assert.is(tooHigh.kind, 'invalid');
    const refused = await f.connectivity.commands.setPowerSave('none').catch((e) => e);
    assert.is(refused.kind, 'device');
    const unknown = await f.connectivity.commands.setPowerSave('turbo' as never).catch((e) => e);
    assert.is(unknown.kind, 'invalid');
  } finally {
    await f.close();
  }
});

test('the owner can enter setup mode while connected; the station stays connected', async () => {
  const f = await startManagerFixture({}, homeInRangeAndSaved);
  try {
    await waitFor(() => f.device.get().connectivity === 'connected', 'connected');
    await f.connectivity.commands.enterSetupMode();
    await waitFor(() => f.device.get().softap.active, 'the setup AP');
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.ok(f.device.get().softap.active, 'held although the station is stable');
    assert.is(f.device.get().connectivity, 'connected');
    assert.ok(f.connectivity.portal.inSetupMode());
  } finally {
    await f.close();
  }
});

test('a restart asked by the owner takes the radio down and re-runs start-up, also when the device is lost', async () => {
  const f = await startManagerFixture({ deviceProbeMs: 60_000 }, homeInRangeAndSaved);
  try {
    await waitFor(() => f.device.get().connectivity === 'connected', 'connected');
    const inits = () => f.coproc.calls.filter((c) => c === 'configHeartbeat').length;
    await f.connectivity.commands.restartCoprocessor();
    assert.ok(f.coproc.calls.includes('disconnectAp'));
    assert.ok(f.events.some((e) => e.name === 'coprocessor_reset'));
    await waitFor(() => inits() === 2 && f.device.get().connectivity === 'connected', 'started over');
    f.coproc.linkUp = false;
    f.coproc.emit('link', { up: false, reason: 'unplugged' });
    await waitFor(() => f.device.get().connectivity === 'device_lost', 'lost');
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is(f.device.get().connectivity, 'device_lost', 'stays lost while the link is down');
    f.coproc.linkUp = true;
    await f.connectivity.commands.restartCoprocessor();
    await waitFor(() => f.device.get().connectivity === 'connected', 'back after the restart');
  } finally {
    await f.close();
  }
});

test('a port still opening at start is waited for past the heartbeat window; a refused open is a lost device at once', async () => {
  const opening = await startManagerFixture({ heartbeatExpectedMs: 20 }, async (coproc) => {
    coproc.linkUp = false;
  });
  try {
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(opening.coproc.calls, [], 'nothing asked of a port still opening');
    assert.is.not(opening.device.get().connectivity, 'device_lost');
    opening.coproc.linkUp = true;
    opening.coproc.emit('link', { up: true });
    await waitFor(() => opening.device.get().connectivity === 'setup_ap', 'started once the link came up');
  } finally {
    await opening.close();
  }
  const refused = await startManagerFixture({ heartbeatExpectedMs: 60_000 }, async (coproc) => {
    coproc.linkUp = false;
  });
  try {
    refused.coproc.emit('link', { up: false, reason: 'cannot open /dev/ttyS9: ENOENT' });
    await waitFor(() => refused.device.get().connectivity === 'device_lost', 'lost without waiting for a heartbeat');
  } finally {
    await refused.close();
  }
});

test.run();
