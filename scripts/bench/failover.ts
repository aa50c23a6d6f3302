/**
 * npm run bench -- failover [--runs N]
 *
 * How closely the connectivity manager keeps the timers the configuration states, over repeated
 * runs, in real time: disconnect event → first reconnect request (NESTBOX_RECONNECT_DELAY_MS),
 * last heartbeat → device_lost (heartbeat period as the device applies it × NESTBOX_HEARTBEAT_MISSES),
 * end of the grace period → soft AP start request (NESTBOX_FALLBACK_AFTER_S). Target: each within
 * 100 ms of the configured value.
 *
 * The device below the manager is the connectivity tests' coprocessor test double, until the link's
 * simulator is merged (then `deviceForBench` returns the simulator's client).
 */
import { parseArgs } from 'node:util';
import type { Bench } from './index.js';
import { loadConfig } from '../../daemon/config.js';
import { ConnectivityManager } from '../../daemon/connectivity/manager.js';
import { NetworksRepo } from '../../daemon/connectivity/networks-repo.js';
import { policyFromConfig, type ConnectivityPolicy } from '../../daemon/connectivity/policy.js';
import { DeviceState, initialDeviceState } from '../../daemon/device/state.js';
import { silentLogger } from '../../daemon/log/logger.js';
import { openDatabase } from '../../daemon/store/db.js';
import { migrate } from '../../daemon/store/migrate.js';
import { CoprocTestDouble } from '../../test/connectivity/coproc-test-double.js';

const BENCH_ENV = {
  NESTBOX_RECONNECT_DELAY_MS: '300',
  NESTBOX_FALLBACK_AFTER_S: '1',
  NESTBOX_HEARTBEAT_S: '10',
  NESTBOX_HEARTBEAT_MISSES: '3',
  // The device's clocks run 40× faster: its 10 s heartbeat is 250 ms here, lost after 750 ms.
  NESTBOX_COPROC_TIME_SCALE: '40',
};
const HOME = { ssid: new TextEncoder().encode('Home'), password: 'correct horse', channel: 6, rssi: -50, security: 'wpa2_psk' as const };
const TARGET_MS = 100;

function deviceForBench(): CoprocTestDouble {
  return new CoprocTestDouble();
}

interface Rig {
  coproc: CoprocTestDouble;
  device: DeviceState;
  close(): Promise<void>;
}

async function rig(policy: ConnectivityPolicy): Promise<Rig> {
  const db = openDatabase({ filename: ':memory:' });
  await migrate(db);
  const networks = new NetworksRepo(db);
  await networks.save({ ssid: HOME.ssid, passphrase: HOME.password, hidden: false }, false);
  const coproc = deviceForBench();
  coproc.air.push(HOME);
  const device = new DeviceState(initialDeviceState('bench', 'bench'));
  const settings = new Map<string, string>();
  const manager = new ConnectivityManager({
    client: coproc, device, networks, policy, setupPassphrase: 'bench-setup-key', log: silentLogger,
    settings: { get: async (key) => settings.get(key) ?? null, set: async (key, value) => { settings.set(key, value); } },
  });
  await manager.start();
  await until(() => device.get().connectivity === 'connected');
  return { coproc, device, async close() { await manager.stop(); await db.destroy(); } };
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('bench: condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Resolves with the time (performance.now) of the next call of `method` on the device. */
function nextCall(coproc: CoprocTestDouble, method: 'connectAp' | 'startSoftAp'): Promise<number> {
  return new Promise((resolve) => {
    const original = coproc[method].bind(coproc) as (...args: any[]) => Promise<any>;
    (coproc as any)[method] = (...args: any[]) => {
      (coproc as any)[method] = original;
      resolve(performance.now());
      return original(...args);
    };
  });
}

async function disconnectToReconnect(policy: ConnectivityPolicy): Promise<number> {
  const r = await rig(policy);
  try {
    const called = nextCall(r.coproc, 'connectAp');
    const at = performance.now();
    r.coproc.dropStation(200);
    return (await called) - at;
  } finally { await r.close(); }
}

async function heartbeatToLost(policy: ConnectivityPolicy): Promise<number> {
  const r = await rig(policy);
  try {
    r.coproc.emit('heartbeat', { number: 1 });
    const at = performance.now();
    r.coproc.answering = false;
    await until(() => r.device.get().connectivity === 'device_lost');
    return performance.now() - at;
  } finally { r.coproc.answering = true; await r.close(); }
}

async function graceEndToSoftAp(policy: ConnectivityPolicy): Promise<number> {
  const r = await rig(policy);
  try {
    r.coproc.air.length = 0;
    const started = nextCall(r.coproc, 'startSoftAp');
    const dropAt = performance.now();
    r.coproc.dropStation(200);
    return (await started) - (dropAt + policy.fallbackAfterMs);
  } finally { await r.close(); }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const bench: Bench = {
  description: 'disconnect → reconnect request, last heartbeat → device_lost, grace end → soft AP, against the configuration',
  run,
};

async function run(argv: string[] = []): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { runs: { type: 'string', default: '5' }, help: { type: 'boolean' } } });
  if (values.help) { process.stdout.write('npm run bench -- failover [--runs N]\n'); return; }
  const runs = Math.max(1, Number(values.runs) || 5);
  const policy = policyFromConfig(loadConfig({ env: BENCH_ENV }));
  const lostAfter = policy.heartbeatExpectedMs * policy.heartbeatMisses;
  const figures = [
    { metric: 'disconnect_to_reconnect_ms', configured: policy.reconnectDelayMs, measure: () => disconnectToReconnect(policy) },
    { metric: 'heartbeat_to_device_lost_ms', configured: lostAfter, measure: () => heartbeatToLost(policy) },
    // Measured from the grace period's end, so the configured figure is 0.
    { metric: 'grace_end_to_softap_ms', configured: 0, measure: () => graceEndToSoftAp(policy) },
  ];
  const rows: string[] = [];
  const lines: string[] = [];
  for (const figure of figures) {
    const samples: number[] = [];
    for (let i = 0; i < runs; i += 1) samples.push(await figure.measure());
    const p50 = percentile(samples, 50);
    const worst = samples.reduce((a, b) => (Math.abs(b - figure.configured) > Math.abs(a - figure.configured) ? b : a));
    const ok = Math.abs(worst - figure.configured) <= TARGET_MS;
    rows.push(`${figure.metric.padEnd(30)} ${String(figure.configured).padStart(10)} ${p50.toFixed(1).padStart(10)} ${worst.toFixed(1).padStart(10)}   ${ok ? 'ok' : 'MISSED'}`);
    lines.push(JSON.stringify({ bench: 'failover', metric: figure.metric, value: Number(p50.toFixed(2)), configured: figure.configured, worst: Number(worst.toFixed(2)), runs, within_target: ok, device: 'test-double' }));
  }
  process.stdout.write(`failover: ${runs} runs each, target ±${TARGET_MS} ms of the configured value\n`);
  process.stdout.write(`${'metric'.padEnd(30)} ${'configured'.padStart(10)} ${'p50'.padStart(10)} ${'worst'.padStart(10)}\n${rows.join('\n')}\n`);
  process.stdout.write(lines.join('\n') + '\n');
}
