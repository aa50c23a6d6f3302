/**
 * The owner's radio choices (transmit power, power save), kept in the settings table because the
 * coprocessor forgets them on every reset: the command that sets one remembers it, and the runner
 * applies them again whenever it initialises the device.
 */
import type { CoprocClientApi } from '../coproc/api.js';
import type { PowerSaveMode } from '../device/commands.js';
import type { Logger } from '../log/logger.js';
import { describeDeviceError } from './device-operations.js';

/** Persisted owner choices that a device reset must not lose. */
export interface DeviceSettingsStore {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
}

const TX_POWER_KEY = 'connectivity.tx_power_dbm';
const POWER_SAVE_KEY = 'connectivity.power_save';

export class RadioSettings {
  constructor(
    private readonly store: DeviceSettingsStore,
    private readonly log: Logger,
  ) {}

  rememberTxPower(dbm: number): Promise<void> {
    return this.store.set(TX_POWER_KEY, String(dbm));
  }

  rememberPowerSave(mode: PowerSaveMode): Promise<void> {
    return this.store.set(POWER_SAVE_KEY, mode);
  }

  /** Applies what was remembered; a value the device refuses is logged, not fatal to the start. */
  async reapply(client: CoprocClientApi): Promise<void> {
    const tx = await this.store.get(TX_POWER_KEY);
    const ps = await this.store.get(POWER_SAVE_KEY);
    if (tx !== null)
      await client
        .setMaxTxPower(Number(tx))
        .catch((error) => this.log.warn('stored tx power not applied', { error: describeDeviceError(error) }));
    if (ps !== null)
      await client
        .setPowerSave(ps as PowerSaveMode)
        .catch((error) => this.log.warn('stored power save not applied', { error: describeDeviceError(error) }));
  }
}
