/**
 * The daemon's device path in this process, without HTTP or MQTT: the embedded simulator behind
 * the real framing (`openCoprocLink` with `sim`), the real client, and the connectivity subsystem
 * exactly as app.ts starts it (config → policy, saved networks on a real SQLite file, OTA engine),
 * writing a real DeviceState. Scenario controls (`sim`) make the device do things; module tests,
 * the failover bench and the MQTT bench read what the daemon makes of them.
 */
import { join } from 'node:path';
import { loadConfig, type Config } from '../../daemon/config.js';
import { openCoprocLink } from '../../daemon/coproc/link.js';
import type { CoprocClient } from '../../daemon/coproc/client.js';
import type { Simulator } from '../../daemon/coproc/sim/index.js';
import { SIM_NETWORKS } from '../../daemon/coproc/sim/index.js';
import { NetworksRepo } from '../../daemon/connectivity/networks-repo.js';
import { policyFromConfig, type ConnectivityPolicy } from '../../daemon/connectivity/policy.js';
import { startConnectivitySubsystem, type ConnectivityParts } from '../../daemon/connectivity/subsystem.js';
import { DeviceState, initialDeviceState, type DeviceEvent } from '../../daemon/device/state.js';
import { Health } from '../../daemon/lifecycle/health.js';
import { Logger, silentLogger } from '../../daemon/log/logger.js';
import type { Db } from '../../daemon/store/db.js';
import { tempDir } from './paths.js';
import { openMigratedDatabase } from './migrated-database.js';

/** The simulator's home network (daemon/coproc/sim/world.ts). */
export const SIM_HOME = { ssid: 'HomeNet', passphrase: SIM_NETWORKS.home.passphrase };

export interface SimConnectivity {
  sim: Simulator;
  client: CoprocClient;
  connectivity: ConnectivityParts;
  device: DeviceState;
  networks: NetworksRepo;
  health: Health;
  policy: ConnectivityPolicy;
  config: Config;
  db: Db;
  events: DeviceEvent[];
  /** Resolves when `check` holds for the DeviceState (checked at each change), or rejects after `timeoutMs`. */
  until(check: (state: ReturnType<DeviceState['get']>) => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface SimConnectivityOptions {
  /** NESTBOX_* variables (timers, NESTBOX_COPROC_TIME_SCALE, NESTBOX_SIM_SCENARIO). */
  env?: Record<string, string>;
  /** Save the simulator's home network before start (default true). */
  homeSaved?: boolean;
  /** Start connectivity only once the chip has announced its boot (a daemon slow to start). */
  afterBoot?: boolean;
  log?: Logger;
}

export async function startSimConnectivity(options: SimConnectivityOptions = {}): Promise<SimConnectivity> {
  const dir = tempDir('nestbox-simconn-');
  const config = loadConfig({
    env: { NESTBOX_DATA_DIR: dir.path, NESTBOX_SETUP_PASSPHRASE: 'sim-setup-key', ...options.env },
  });
  const log = options.log ?? silentLogger;
  const db = await openMigratedDatabase(join(dir.path, 'nestbox.sqlite3'));
  const networks = new NetworksRepo(db);
  if (options.homeSaved !== false) {
    await networks.save(
      { ssid: new TextEncoder().encode(SIM_HOME.ssid), passphrase: SIM_HOME.passphrase, hidden: false },
      false,
    );
  }
  const { client, simulator } = openCoprocLink(
    { kind: 'sim' },
    {
      log,
      sim: {
        timeScale: config.coprocTimeScale,
        scenario: config.simScenario,
        firmware: config.simFirmware,
        otaPath: join(dir.path, 'ota.bin'),
      },
    },
  );
  if (options.afterBoot) await new Promise((resolve) => client.once('boot', resolve));
  const device = new DeviceState(initialDeviceState('test', 'sim'));
  const events: DeviceEvent[] = [];
  device.on('event', (event) => events.push(event));
  const health = new Health();
  const { connectivity, stop } = await startConnectivitySubsystem({
    client,
    config,
    db,
    device,
    networks,
    log,
    health: (value) => health.set('connectivity', value),
  });
  return {
    sim: simulator!,
    client,
    connectivity,
    device,
    networks,
    health,
    policy: policyFromConfig(config),
    config,
    db,
    events,
    until: (check, what, timeoutMs = 10_000) => untilState(device, check, what, timeoutMs),
    async close() {
      await stop();
      await client.close();
      simulator?.close();
      await db.destroy();
      dir.remove();
    },
  };
}

function untilState(
  device: DeviceState,
  check: (state: ReturnType<DeviceState['get']>) => boolean,
  what: string,
  timeoutMs: number,
): Promise<void> {
  if (check(device.get())) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      device.off('change', onChange);
      reject(new Error(`${what}: not reached within ${timeoutMs} ms (connectivity ${device.get().connectivity})`));
    }, timeoutMs);
    const onChange = () => {
      if (!check(device.get())) return;
      clearTimeout(timer);
      device.off('change', onChange);
      resolve();
    };
    device.on('change', onChange);
  });
}
