/**
 * Shared set-up of the in-process bridge tests: a real DeviceState, a real SQLite settings store,
 * and a test double of the connectivity manager (the DeviceCommands implementation that the
 * connectivity branch provides in the daemon), recording what it was asked.
 */
import { join } from 'node:path';
import type { DeviceCommands, PowerSaveMode, ScannedNetwork } from '../../daemon/device/commands.js';
import { DeviceState, initialDeviceState } from '../../daemon/device/state.js';
import type { ComponentHealth } from '../../daemon/lifecycle/health.js';
import { Logger, type LogFields } from '../../daemon/log/logger.js';
import { MqttBridge, type BridgeTiming, type MqttBridgeOptions } from '../../daemon/mqtt/bridge.js';
import { settingsMemory, type BridgeMemory } from '../../daemon/mqtt/memory.js';
import type { Db } from '../../daemon/store/db.js';
import { tempDir } from '../helpers/paths.js';
import { BOX_USER, type MosquittoBroker } from '../helpers/mosquitto-broker.js';
import { openMigratedDatabase } from '../helpers/migrated-database.js';

/** Stands in for the connectivity manager, which implements DeviceCommands on its own branch. */
export class DeviceCommandsDouble implements DeviceCommands {
  readonly calls: string[] = [];
  failRestartWith: Error | null = null;
  /** While set, scan() waits for it (a scan in progress). */
  scanGate: Promise<void> | null = null;

  async scan(): Promise<ScannedNetwork[]> {
    this.calls.push('scan');
    if (this.scanGate) await this.scanGate;
    return [
      { ssid: 'Home', bssid: 'aa:bb:cc:00:00:01', rssi: -48, channel: 6, security: 'wpa2_psk' },
      { ssid: 'Neighbour', bssid: 'aa:bb:cc:00:00:02', rssi: -80, channel: 11, security: 'wpa3_psk' },
    ];
  }

  async enterSetupMode(): Promise<void> {
    this.calls.push('setup_mode');
  }

  async setTxPower(dbm: number): Promise<number> {
    this.calls.push(`tx_power ${dbm}`);
    return Math.round(dbm * 4) / 4; // the device works in quarter dBm
  }

  async setPowerSave(mode: PowerSaveMode): Promise<void> {
    this.calls.push(`power_save ${mode}`);
  }

  async restartCoprocessor(): Promise<void> {
    this.calls.push('restart_coprocessor');
    if (this.failRestartWith) throw this.failRestartWith;
  }

  async installFirmware(): Promise<{ file: string; version: string; bytes: number }> {
    this.calls.push('install_firmware');
    return { file: 'network_adapter.bin', version: 'FG-1.1.0.0.0', bytes: 4096 };
  }
}

export const TEST_TIMING: Partial<BridgeTiming> = { haResendDelayMs: 150, reconnectMinMs: 200, stopTimeoutMs: 1000 };

export interface HarnessBridge {
  bridge: MqttBridge;
  device: DeviceState;
  healths: ComponentHealth[];
  logs: Array<{ msg: string } & LogFields>;
  memory: BridgeMemory;
  health(): ComponentHealth | undefined;
  /** Resolves when a reported health matches. */
  waitForHealth(match: (health: ComponentHealth) => boolean, timeoutMs?: number): Promise<ComponentHealth>;
}

const databases: Array<{ db: Db; remove: () => void }> = [];

export async function freshMemory(): Promise<BridgeMemory> {
  const dir = tempDir('nestbox-mqtt-db-');
  const db = await openMigratedDatabase(join(dir.path, 'nestbox.sqlite3'));
  databases.push({ db, remove: dir.remove });
  return settingsMemory(db);
}

export async function closeDatabases(): Promise<void> {
  for (const { db, remove } of databases.splice(0)) {
    await db.destroy();
    remove();
  }
}

export function newDeviceState(mac: string | null): DeviceState {
  const device = new DeviceState(initialDeviceState('9.8.7', 'sim'));
  if (mac) device.update({ wifi: { mac } });
  return device;
}

export async function startBridge(
  broker: MosquittoBroker,
  options: Partial<MqttBridgeOptions> & { mac?: string | null } = {},
): Promise<HarnessBridge> {
  const device = options.device ?? newDeviceState(options.mac === undefined ? 'a0:b1:c2:d3:e4:f5' : options.mac);
  const healths: ComponentHealth[] = [];
  const listeners = new Set<() => void>();
  const logs: HarnessBridge['logs'] = [];
  const log = new Logger('debug', {}, (line) => logs.push(JSON.parse(line)));
  const memory = options.memory ?? (await freshMemory());
  const bridge = new MqttBridge({
    commands: new DeviceCommandsDouble(),
    broker: {
      url: broker.url,
      username: BOX_USER.username,
      password: BOX_USER.password,
      protocolVersion: 4,
      clientId: null,
      caFile: null,
      certFile: null,
      keyFile: null,
    },
    prefix: 'nestbox',
    discoveryPrefix: 'homeassistant',
    log,
    version: '9.8.7',
    dashboard: { baseUrl: 'http://localhost:8080', httpPort: 8080, mdnsHostname: 'nestbox-test' },
    refreshSchedule: 'off',
    ...options,
    device,
    memory,
    reportHealth: (health) => {
      healths.push(health);
      for (const listener of listeners) listener();
    },
    timing: { ...TEST_TIMING, ...options.timing },
  });
  await bridge.start();
  return {
    bridge,
    device,
    healths,
    logs,
    memory,
    health: () => healths.at(-1),
    waitForHealth(match, timeoutMs = 5000) {
      const now = healths.at(-1);
      if (now && match(now)) return Promise.resolve(now);
      return new Promise((resolve, reject) => {
        const listener = () => {
          const latest = healths.at(-1)!;
          if (!match(latest)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(latest);
        };
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new Error(`health not reached; reported: ${JSON.stringify(healths)}`));
        }, timeoutMs);
        listeners.add(listener);
      });
    },
  };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not reached in time: ${what}`);
    await delay(20);
  }
}
