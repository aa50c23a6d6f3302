/**
 * The connectivity parts (runner, setup portal, device commands, firmware update) on a real SQLite file and a real DeviceState, with the coprocessor
 * test double below it and millisecond timers, for their tests and the HTTP routes' tests.
 */
import { join } from 'node:path';
import type { FirmwareUpdater } from '../../daemon/connectivity/firmware-update.js';
import { NetworksRepo } from '../../daemon/connectivity/networks-repo.js';
import type { ConnectivityPolicy } from '../../daemon/connectivity/policy.js';
import { buildConnectivity, type ConnectivityParts } from '../../daemon/connectivity/subsystem.js';
import { DeviceState, initialDeviceState, type DeviceEvent } from '../../daemon/device/state.js';
import { Logger, type LogFields } from '../../daemon/log/logger.js';
import type { Db } from '../../daemon/store/db.js';
import { getSetting, setSetting } from '../../daemon/store/settings.js';
import { Health } from '../../daemon/lifecycle/health.js';
import { tempDir } from '../helpers/paths.js';
import { CoprocTestDouble } from './coproc-test-double.js';
import { openMigratedDatabase } from '../helpers/migrated-database.js';

export const FAST_POLICY: ConnectivityPolicy = {
  heartbeatPeriodS: 10,
  heartbeatExpectedMs: 60_000,
  heartbeatMisses: 3,
  reconnectDelayMs: 20,
  reconnectMaxMs: 80,
  jitter: 0.2,
  fallbackAfterMs: 150,
  setupRetryMs: 100,
  stableMs: 100,
  authFailureLimit: 2,
  stationPollMs: 30,
  deviceProbeMs: 50,
  forcedSetupHoldMs: 60_000,
  leaseRequired: false,
  leaseTimeoutMs: 30_000,
  portalIdleMs: 120_000,
  connectOutcomeMs: 2000,
};

export interface ManagerFixture {
  connectivity: ConnectivityParts;
  coproc: CoprocTestDouble;
  device: DeviceState;
  networks: NetworksRepo;
  health: Health;
  db: Db;
  events: DeviceEvent[];
  logs: Array<{ msg: string } & LogFields>;
  passphrase: string;
  close(): Promise<void>;
}

export async function startManagerFixture(
  policy: Partial<ConnectivityPolicy> = {},
  prepare?: (coproc: CoprocTestDouble, networks: NetworksRepo) => Promise<void>,
  outage?: (error: unknown) => string | null,
): Promise<ManagerFixture> {
  const dir = tempDir('nestbox-connectivity-');
  const db = await openMigratedDatabase(join(dir.path, 'test.sqlite3'));
  const coproc = new CoprocTestDouble();
  const networks = new NetworksRepo(db);
  const device = new DeviceState(initialDeviceState('test', 'test-double'));
  const health = new Health();
  const events: DeviceEvent[] = [];
  device.on('event', (event) => events.push(event));
  const logs: Array<{ msg: string } & LogFields> = [];
  const log = new Logger('debug', {}, (line) => logs.push(JSON.parse(line)));
  if (prepare) await prepare(coproc, networks);
  const passphrase = 'setup-pass-123';
  const connectivity = buildConnectivity({
    client: coproc,
    device,
    networks,
    policy: { ...FAST_POLICY, ...policy },
    setupPassphrase: passphrase,
    log,
    settings: { get: (key) => getSetting(db, key), set: (key, value) => setSetting(db, key, value) },
    health: (value) => health.set('connectivity', value),
    random: () => 0.5,
    firmware: firmwareThrough(coproc),
    outage,
  });
  await connectivity.runner.start();
  return {
    connectivity,
    coproc,
    device,
    networks,
    health,
    db,
    events,
    logs,
    passphrase,
    async close() {
      connectivity.recovery.stop();
      await connectivity.runner.stop();
      await db.destroy();
      dir.remove();
    },
  };
}

/** Waits until `check` holds (state is reached through real, millisecond timers). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/**
 * Stands in for the link's OTA engine (daemon/coproc/ota.ts) the way the firmware update expects it:
 * OTABegin, 4000-byte OTAWrites with progress, OTAEnd; the device then reboots (devInit).
 */
function firmwareThrough(coproc: CoprocTestDouble): FirmwareUpdater {
  return {
    async update(image, progress) {
      await coproc.otaBegin();
      for (let offset = 0; offset < image.length; offset += 4000) {
        await coproc.otaWrite(image.subarray(offset, offset + 4000));
        progress(Math.min(image.length, offset + 4000), image.length);
      }
      await coproc.otaEnd();
      setTimeout(() => coproc.reboot(), 20);
    },
  };
}
