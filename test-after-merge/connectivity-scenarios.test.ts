/**
 * Scenario tests of the daemon against the simulated coprocessor over a pseudo-terminal, with a
 * fast time scale (issue 4, "Tests"). Every step is observed the way people and tools see it: the
 * setup API without login (a phone on the setup AP), /healthz, and the transition log lines
 * ("connectivity A → B" with its cause).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon, type RunningDaemon, type LogLine } from '../test/helpers/daemon.js';

const TIME_SCALE = 20;

/** What the scenarios need of the simulator (bind to its control surface at merge). */
interface SimulatorControl {
  /** The pseudo-terminal the daemon opens (`PTY <path>` on the simulator's stdout). */
  devicePath: string;
  addNetwork(network: { ssid: string; password: string; channel: number; rssi: number }): Promise<void>;
  vanish(ssid: string): Promise<void>;
  reappear(ssid: string): Promise<void>;
  stopHeartbeats(): Promise<void>;
  resumeHeartbeats(): Promise<void>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

declare function startSimulator(options: { timeScale: number; framing: 'serial' | 'esps' }): Promise<SimulatorControl>;

const HOME = { ssid: 'Home', password: 'correct horse', channel: 6, rssi: -55 };

async function boot(sim: SimulatorControl): Promise<RunningDaemon> {
  return startDaemon({
    env: {
      NESTBOX_COPROC: `serial:${sim.devicePath}`,
      NESTBOX_COPROC_TIME_SCALE: String(TIME_SCALE),
      NESTBOX_HEARTBEAT_S: '10',
      NESTBOX_HEARTBEAT_MISSES: '2',
      NESTBOX_RECONNECT_DELAY_MS: '200',
      NESTBOX_RECONNECT_MAX_S: '1',
      NESTBOX_FALLBACK_AFTER_S: '1',
      NESTBOX_SETUP_RETRY_S: '1',
      NESTBOX_STABLE_S: '1',
      NESTBOX_SETUP_PASSPHRASE: 'scenario-setup-key',
    },
  });
}

const reached = (state: string) => (line: LogLine) => line.component === 'connectivity' && line.to === state;

async function statusUntil(daemon: RunningDaemon, check: (body: any) => boolean, timeoutMs = 8000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await daemon.json('/setup/api/status');
    if (status === 200 && check(body)) return body;
    if (Date.now() > deadline) throw new Error(`status never matched; last: ${status} ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('first boot → setup AP → credentials → connected → AP gone → reconnecting → fallback → AP back → connected', async () => {
  const sim = await startSimulator({ timeScale: TIME_SCALE, framing: 'serial' });
  await sim.addNetwork(HOME);
  const daemon = await boot(sim);
  try {
    await daemon.waitForLog(reached('setup_ap'));
    const networks = await daemon.json('/setup/api/networks');
    assert.ok(networks.body.some((n: any) => n.ssid === 'Home'));
    assert.is((await daemon.json('/setup/api/connect', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ssid: 'Home', password: HOME.password }) })).status, 202);
    await daemon.waitForLog(reached('connected'));
    await sim.vanish('Home');
    await daemon.waitForLog(reached('reconnecting'));
    const fallback = await daemon.waitForLog((line) => reached('setup_ap')(line) && /grace period/.test(String(line.cause)));
    assert.ok(fallback);
    assert.is((await daemon.json('/setup/api/status')).body.state, 'setup_ap');
    await sim.reappear('Home');
    await daemon.waitForLog((line) => reached('connected')(line) && daemon.logs.indexOf(line) > daemon.logs.indexOf(fallback));
  } finally {
    await daemon.stop();
    await sim.close();
  }
});

test('a wrong password → the auth error on the status API', async () => {
  const sim = await startSimulator({ timeScale: TIME_SCALE, framing: 'serial' });
  await sim.addNetwork(HOME);
  const daemon = await boot(sim);
  try {
    await daemon.waitForLog(reached('setup_ap'));
    await daemon.json('/setup/api/connect', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ssid: 'Home', password: 'not the password' }) });
    const status = await statusUntil(daemon, (body) => body.error !== null);
    assert.is(status.error, 'auth');
  } finally {
    await daemon.stop();
    await sim.close();
  }
});

test('heartbeats stop → device_lost and /healthz degraded → the device answers → re-initialised', async () => {
  const sim = await startSimulator({ timeScale: TIME_SCALE, framing: 'serial' });
  const daemon = await boot(sim);
  try {
    await daemon.waitForLog(reached('setup_ap'));
    await sim.stopHeartbeats();
    await daemon.waitForLog(reached('device_lost'));
    assert.is((await daemon.json('/healthz')).body.status, 'degraded');
    await sim.resumeHeartbeats();
    await daemon.waitForLog((line) => line.msg === 'coprocessor initialised' && daemon.logs.some(reached('device_lost')));
    await daemon.waitForLog((line) => reached('setup_ap')(line) && line.from !== 'starting');
    assert.is((await daemon.json('/healthz')).body.status, 'ok');
  } finally {
    await daemon.stop();
    await sim.close();
  }
});

test('a reset during setup brings the setup AP back with the whole configuration', async () => {
  const sim = await startSimulator({ timeScale: TIME_SCALE, framing: 'serial' });
  const daemon = await boot(sim);
  try {
    await daemon.waitForLog((line) => line.msg === 'setup access point started');
    const started = daemon.logs.filter((line) => line.msg === 'setup access point started').length;
    await sim.reset();
    await daemon.waitForLog((line) => line.msg === 'coprocessor initialised' && daemon.logs.filter((l) => l.msg === 'coprocessor initialised').length >= 2);
    await daemon.waitForLog(() => daemon.logs.filter((line) => line.msg === 'setup access point started').length > started);
    assert.is((await statusUntil(daemon, (body) => body.setup_ap.active)).state, 'setup_ap');
  } finally {
    await daemon.stop();
    await sim.close();
  }
});

test.run();
