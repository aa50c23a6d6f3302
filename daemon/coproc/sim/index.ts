/**
 * The simulated coprocessor as one object: a SimDevice behind a SimLink of either framing, with the
 * scenario controls tests use (exported for other subsystems' tests). Bytes come in through
 * `receive()` and leave through the sink given to `attach()`.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FramingKind } from '../framing/index.js';
import type { FirmwareGeneration } from '../operations.js';
import { SimClock } from './clock.js';
import { DISCONNECT_REASON, SimDevice } from './device.js';
import { SimLink } from './link.js';

export { SIM_NETWORKS, SEC, type SimNetwork } from './world.js';
export { DISCONNECT_REASON, SIM_TIMING, type RadioChange } from './device.js';

/** default: five networks in range; no_networks: an empty sky; unresponsive: a device that never answers. */
export { SIM_SCENARIO_NAMES as SIM_SCENARIOS, type SimScenarioName as SimScenario } from '../../config.js';
import type { SimScenarioName as SimScenario } from '../../config.js';

export interface SimulatorOptions {
  framing?: FramingKind;
  /** Device time runs this many times faster than real time (default 1). */
  timeScale?: number;
  scenario?: SimScenario;
  /** Throttle both directions to a UART of this speed. */
  baud?: number;
  /** Scratch file for OTA images (default: a file in the system temp dir). */
  otaPath?: string;
  stationMac?: string;
  /** The firmware generation to behave like (default documented). */
  firmware?: FirmwareGeneration;
}

/** What a test (or the standalone simulator's stdin) can make the virtual world do. */
export interface SimControls {
  /** The access point goes off the air; a connected station loses it after the beacon timeout (reason 200). */
  vanishNetwork(ssid: string | Uint8Array): void;
  restoreNetwork(ssid: string | Uint8Array): void;
  /** The access point changes its passphrase: the saved one is now wrong (a connected station is dropped). */
  setPassphrase(ssid: string | Uint8Array, passphrase: string): void;
  setRssi(ssid: string | Uint8Array, rssi: number): void;
  /** The access point drops the station (event 303 with this reason). */
  kickStation(reason?: number): boolean;
  /** Heartbeat events stop (or flow again) while everything else keeps working. */
  setHeartbeats(flowing: boolean): void;
  /** The firmware hangs: no answers, no events, until unfrozen or reset. */
  freeze(frozen: boolean): void;
  /** Power-cycle (the reset line): state lost and a hang ended, then PRIV INIT + Event_DevInit. */
  reset(): void;
  /** Stray bytes towards the host. */
  injectGarbage(bytes?: Uint8Array | number): void;
  /** A phone joins the soft AP (null when it is off or full). */
  joinSoftAp(station?: { mac?: string; rssi?: number }): string | null;
  /** A phone leaves the soft AP (event 304). */
  leaveSoftAp(mac: string): boolean;
}

export class Simulator implements SimControls {
  readonly clock: SimClock;
  readonly device: SimDevice;
  readonly link: SimLink;
  readonly framing: FramingKind;
  private sink: ((bytes: Buffer) => void) | null = null;

  constructor(options: SimulatorOptions = {}) {
    this.framing = options.framing ?? 'serial';
    this.clock = new SimClock(options.timeScale ?? 1);
    this.device = new SimDevice({
      clock: this.clock,
      otaPath:
        options.otaPath ??
        join(tmpdir(), `nestbox-sim-ota-${process.pid}-${Math.random().toString(36).slice(2, 8)}.bin`),
      stationMac: options.stationMac,
      firmware: options.firmware,
    });
    this.link = new SimLink({
      framing: this.framing,
      device: this.device,
      baud: options.baud,
      write: (bytes) => this.sink?.(bytes),
    });
    applyScenario(this, options.scenario ?? 'default');
  }

  /** Where the device's bytes go (the line towards the host); null disconnects it. */
  attach(sink: ((bytes: Buffer) => void) | null): void {
    this.sink = sink;
  }

  receive(bytes: Buffer): void {
    this.link.receive(bytes);
  }

  /** Boots the device: it announces itself after the boot time. */
  powerOn(): void {
    this.device.reset('power_on');
  }

  vanishNetwork(ssid: string | Uint8Array): void {
    this.device.vanishNetwork(ssid);
  }
  restoreNetwork(ssid: string | Uint8Array): void {
    this.device.restoreNetwork(ssid);
  }
  setPassphrase(ssid: string | Uint8Array, passphrase: string): void {
    this.device.setPassphrase(ssid, passphrase);
  }
  setRssi(ssid: string | Uint8Array, rssi: number): void {
    this.device.setRssi(ssid, rssi);
  }
  kickStation(reason: number = DISCONNECT_REASON.assocLeave): boolean {
    return this.device.kickStation(reason);
  }
  setHeartbeats(flowing: boolean): void {
    this.device.heartbeatsFlowing = flowing;
  }
  freeze(frozen: boolean): void {
    this.device.frozen = frozen;
  }
  reset(): void {
    this.device.reset('reset');
  }
  joinSoftAp(station?: { mac?: string; rssi?: number }): string | null {
    return this.device.joinSoftAp(station);
  }
  leaveSoftAp(mac: string): boolean {
    return this.device.leaveSoftAp(mac);
  }

  injectGarbage(bytes: Uint8Array | number = 64): void {
    const data =
      typeof bytes === 'number' ? Uint8Array.from({ length: bytes }, () => Math.floor(Math.random() * 256)) : bytes;
    this.link.injectGarbage(data);
  }

  snapshot() {
    return this.device.snapshot();
  }

  close(): void {
    this.sink = null;
    this.device.close();
  }
}

function applyScenario(sim: Simulator, scenario: SimScenario): void {
  if (scenario === 'no_networks') for (const network of sim.device.networks) network.inRange = false;
  if (scenario === 'unresponsive') {
    sim.device.neverAnswers = true;
    sim.freeze(true);
  }
}
