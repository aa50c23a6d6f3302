/**
 * The last scan of the air, shared by those that read it: the runner picks the setup AP's channel
 * and tells a missing network from a refused password with it, the setup portal lists it. Reading
 * it never asks the device; refreshing it is a device operation, so callers run it in line.
 */
import type { CoprocClientApi, ScanEntry } from '../coproc/api.js';
import { CoprocError } from '../coproc/api.js';
import type { ScannedNetwork } from '../device/commands.js';
import type { DeviceState } from '../device/state.js';
import type { Logger } from '../log/logger.js';
import { describeDeviceError } from './device-operations.js';
import { sameSsid } from './network-input.js';
import { toScannedNetwork } from './scan-list.js';

export class RecentScan {
  private last: ScanEntry[] = [];

  constructor(
    private readonly client: CoprocClientApi,
    private readonly log: Logger,
    /** Where the last scan is shown (MQTT state, Home Assistant's networks sensor). */
    private readonly device: DeviceState,
  ) {}

  get entries(): readonly ScanEntry[] {
    return this.last;
  }

  /** As people see it: one entry per network name, strongest first. */
  networks(): ScannedNetwork[] {
    return toScannedNetwork(this.last);
  }

  find(ssid: Uint8Array): ScanEntry | undefined {
    return this.last.find((entry) => sameSsid(entry.ssidBytes, ssid));
  }

  /** Scans now; "no network found" (−1) is an empty list, any other failure is the caller's. */
  async scan(): Promise<readonly ScanEntry[]> {
    try {
      this.last = await this.client.scan();
    } catch (error) {
      if (!(error instanceof CoprocError && error.kind === 'device')) throw error;
      this.last = [];
    }
    this.device.update({ scan: { at: new Date().toISOString(), networks: this.networks() } });
    return this.last;
  }

  /** Scans to keep the list fresh; a failure keeps the list it had. */
  async refresh(): Promise<void> {
    await this.scan().catch((error) => this.log.debug('scan failed', { error: describeDeviceError(error) }));
  }
}
