/**
 * The network layer's side of a chip (re)initialisation. The ESP-Hosted driver registers its
 * interfaces with an all-zero MAC and registers them again on every boot of the chip
 * (esp-hosted main.c esp_add_card, spi/esp_spi.c esp_spi_reinit_work); the MACs they must carry
 * are the chip's own, which only the chip can tell (GetMacAddress, station and soft AP).
 */
import type { CoprocClientApi } from '../coproc/api.js';
import type { Logger } from '../log/logger.js';
import { describeDeviceError } from './device-operations.js';

export interface ChipMacs {
  station: string;
  /** Null when the chip did not say (the soft-AP interface then waits for it). */
  softap: string | null;
}

/** Told after each (re)initialisation of the chip, before the state says what runs on it. */
export interface ChipInterfaces {
  chipInitialised(macs: ChipMacs): void;
}

/** Reads the soft AP's MAC and hands both to the network layer (nothing to do without one). */
export async function tellChipInterfaces(
  client: CoprocClientApi,
  interfaces: ChipInterfaces | null | undefined,
  station: string,
  log: Logger,
): Promise<void> {
  if (!interfaces) return;
  const softap = await client.getMac('softap').catch((error: unknown) => {
    log.warn("the soft AP's MAC was not read", { error: describeDeviceError(error) });
    return null;
  });
  interfaces.chipInitialised({ station, softap });
}
