/**
 * Scenario tests of the daemon against the simulated coprocessor over a pseudo-terminal, with a
 * fast time scale. Every step is observed the way people and tools see it: the
 * setup API without login (a phone on the setup AP), /healthz, and the transition log lines
 * ("connectivity A → B" with its cause).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startAll, startDaemon, type RunningDaemon, type LogLine } from '../helpers/daemon.js';
import { startSimOnPty } from '../helpers/pty.js';

const TIME_SCALE = 20;

/** What the scenarios need of the simulator, on a real pseudo-terminal in this process. */
interface SimulatorControl {
  /** The pseudo-terminal the daemon opens. */
  devicePath: string;
  vanish(ssid: string): void;
  reappear(ssid: string): void;
  stopHeartbeats(): void;
  resumeHeartbeats(): void;
  reset(): void;
  close(): Promise<void>;
}

async function startSimulator(options: { timeScale: number; framing: 'serial' | 'esps' }): Promise<SimulatorControl> {
  const { sim, path, close } = await startSimOnPty({ timeScale: options.timeScale, framing: options.framing });
  return {
    devicePath: path,
    vanish: (ssid) => sim.vanishNetwork(ssid),
    reappear: (ssid) => sim.restoreNetwork(ssid),
    // The firmware hangs: no heartbeats, no answers, until it comes back.
    stopHeartbeats: () => sim.freeze(true),
    resumeHeartbeats: () => sim.freeze(false),
    reset: () => sim.reset(),
    close,
  };
}

/** The simulator's home network (daemon/coproc/sim/world.ts). */
const HOME = { ssid: 'HomeNet', password: 'nestbox-home-2024' };

async function boot(sim: SimulatorControl): Promise<RunningDaemon> {
  return startDaemon({
    startTimeoutMs: 60_000, // four start together on two cores
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

interface Rig {
  sim: SimulatorControl;
  daemon: RunningDaemon;
}
/** One simulator and daemon per scenario, all started together; each test closes its own. */
let rigs: Rig[] = [];
const SCENARIOS = 4;

test.before(async () => {
  const sims = await Promise.all(
    Array.from({ length: SCENARIOS }, () => startSimulator({ timeScale: TIME_SCALE, framing: 'serial' })),
  );
  try {
    const daemons = await startAll(sims.map((sim) => boot(sim)));
    rigs = sims.map((sim, i) => ({ sim, daemon: daemons[i] }));
  } catch (error) {
    await Promise.all(sims.map((sim) => sim.close()));
    throw error;
  }
});

test.after(async () => {
  await Promise.all(
    rigs.map(async ({ sim, daemon }) => {
      await daemon.stop();
      await sim.close();
    }),
  );
});

/** Names the step that did not happen when a wait fails. */
async function step<T>(name: string, waiting: Promise<T>): Promise<T> {
  try {
    return await waiting;
  } catch (error) {
    throw new Error(`step "${name}" did not happen: ${(error as Error).message}`, { cause: error });
  }
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
  const { sim, daemon } = rigs[0];
  try {
    await daemon.waitForLog(reached('setup_ap'));
    // The first scan finishes while the setup AP comes up.
    const deadline = Date.now() + 8000;
    while (!(await daemon.json('/setup/api/networks')).body.some((n: any) => n.ssid === HOME.ssid)) {
      assert.ok(Date.now() < deadline, 'the home network shows in the scan list');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.is(
      (
        await daemon.json('/setup/api/connect', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ ssid: HOME.ssid, password: HOME.password }),
        })
      ).status,
      202,
    );
    await step('connected', daemon.waitForLog(reached('connected'), 15_000));
    // Connected and stable: the setup AP closes (the home network lost before that is still setup mode).
    await step(
      'setup AP stopped',
      daemon.waitForLog((line) => line.msg === 'setup access point stopped', 15_000),
    );
    sim.vanish(HOME.ssid);
    await step('reconnecting', daemon.waitForLog(reached('reconnecting'), 15_000));
    const fallback = await step(
      'fallback',
      daemon.waitForLog((line) => reached('setup_ap')(line) && /grace period/.test(String(line.cause)), 15_000),
    );
    assert.ok(fallback);
    assert.is((await daemon.json('/setup/api/status')).body.state, 'setup_ap');
    sim.reappear(HOME.ssid);
    await step(
      'connected again',
      daemon.waitForLog(
        (line) => reached('connected')(line) && daemon.logs.indexOf(line) > daemon.logs.indexOf(fallback),
        20_000,
      ),
    );
  } finally {
    await daemon.stop();
    await sim.close();
  }
});

test('a wrong password → the auth error on the status API', async () => {
  const { sim, daemon } = rigs[1];
  try {
    await daemon.waitForLog(reached('setup_ap'));
    await daemon.json('/setup/api/connect', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ssid: HOME.ssid, password: 'not the password' }),
    });
    const status = await statusUntil(daemon, (body) => body.error !== null);
    assert.is(status.error, 'auth');
  } finally {
    await daemon.stop();
    await sim.close();
  }
});

test('heartbeats stop → device_lost and /healthz degraded → the device answers → re-initialised', async () => {
  const { sim, daemon } = rigs[2];
  try {
    await daemon.waitForLog(reached('setup_ap'));
    const booted = daemon.logs.findIndex(reached('setup_ap'));
    // Heartbeats late under load (four daemons boot at once beside other suites) rightly lose the
    // device; losing it to a port still opening (link down, no answer to the first request) is the bug.
    const lostAtBoot = daemon.logs
      .slice(0, booted)
      .filter((line) => reached('device_lost')(line) && !/^no heartbeat/.test(String(line.cause)));
    assert.equal(
      lostAtBoot.map((line) => line.cause),
      [],
      'a serial port still opening at boot is not a lost device',
    );
    // This rig waited idle through the scenarios before it: on a loaded machine its heartbeats may
    // have been late meanwhile (rightly a lost device). Start from a device that answers.
    await statusUntil(daemon, (body) => body.state === 'setup_ap', 20_000);
    const frozenAt = daemon.logs.length;
    sim.stopHeartbeats();
    const lost = await daemon.waitForLog(
      (line) => reached('device_lost')(line) && daemon.logs.indexOf(line) >= frozenAt,
    );
    assert.is((await daemon.json('/healthz')).body.status, 'degraded');
    sim.resumeHeartbeats();
    const after = (line: LogLine) => daemon.logs.indexOf(line) > daemon.logs.indexOf(lost);
    await daemon.waitForLog((line) => line.msg === 'coprocessor initialised' && after(line));
    await daemon.waitForLog((line) => reached('setup_ap')(line) && after(line));
    assert.is((await daemon.json('/healthz')).body.status, 'ok');
  } finally {
    await daemon.stop();
    await sim.close();
  }
});

test('a reset during setup brings the setup AP back with the whole configuration', async () => {
  const { sim, daemon } = rigs[3];
  try {
    await daemon.waitForLog((line) => line.msg === 'setup access point started');
    const started = daemon.logs.filter((line) => line.msg === 'setup access point started').length;
    sim.reset();
    await daemon.waitForLog(
      (line) =>
        line.msg === 'coprocessor initialised' &&
        daemon.logs.filter((l) => l.msg === 'coprocessor initialised').length >= 2,
    );
    await daemon.waitForLog(
      () => daemon.logs.filter((line) => line.msg === 'setup access point started').length > started,
    );
    assert.is((await statusUntil(daemon, (body) => body.setup_ap.active)).state, 'setup_ap');
  } finally {
    await daemon.stop();
    await sim.close();
  }
});

test.run();
