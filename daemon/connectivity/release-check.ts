/**
 * Firmware and driver stay matched: the running firmware's release (what the runner read with
 * GetFwVersion or from the boot announcement) against the driver's (NESTBOX_ESP_HOSTED_RELEASE),
 * compared as the driver compares them (coproc/release.ts). The verdict goes to DeviceState
 * `coprocessor.release` (dashboard, MQTT, Home Assistant's problem sensor) and to /healthz as the
 * `firmware_release` component: `degraded` on a mismatch, with what to do.
 */
import type { FirmwareInfo } from '../coproc/api.js';
import { parseRelease, sameRelease } from '../coproc/release.js';
import type { ReleaseState } from '../device/state.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import type { CoprocessorRecord } from './coprocessor-record.js';

export interface ReleaseCheckOptions {
  /** The driver's release; null: nothing is checked (the component is `off`). */
  driver: string | null;
  coprocessor: Pick<CoprocessorRecord, 'release'>;
  log: Logger;
  health?: (health: ComponentHealth) => void;
}

export class ReleaseCheck {
  private last: ReleaseState | null = null;

  constructor(private readonly options: ReleaseCheckOptions) {
    this.write(options.driver === null ? verdict(null, null, null) : verdict(options.driver, null, null));
  }

  /** The firmware as the runner found it at its last initialisation. */
  firmwareSeen(version: string | null, generation: FirmwareInfo['generation'] | null): void {
    const { driver } = this.options;
    if (driver === null) return;
    this.write(verdict(driver, version === null ? null : (parseRelease(version) ?? version), generation));
  }

  private write(state: ReleaseState): void {
    const { coprocessor, log, health } = this.options;
    const changed = JSON.stringify(state) !== JSON.stringify(this.last);
    this.last = state;
    coprocessor.release(state);
    if (state.status === 'mismatch' && changed)
      log.error('the coprocessor firmware is of another release than the driver', {
        driver: state.driver,
        firmware: state.firmware,
      });
    health?.(healthOf(state));
  }
}

function verdict(
  driver: string | null,
  firmware: string | null,
  generation: FirmwareInfo['generation'] | null,
): ReleaseState {
  if (driver === null) return { status: 'off', driver: null, firmware: null, detail: null };
  if (firmware === null) {
    const detail =
      generation === 'documented'
        ? 'the coprocessor firmware is older than the releases that report themselves; it cannot be checked'
        : null;
    return { status: 'unknown', driver, firmware: null, detail };
  }
  if (sameRelease(driver, firmware)) return { status: 'match', driver, firmware, detail: null };
  return {
    status: 'mismatch',
    driver,
    firmware,
    detail:
      `The Wi-Fi coprocessor runs ESP-Hosted ${firmware}, but the box's driver is ${driver} ` +
      `(NESTBOX_ESP_HOSTED_RELEASE), which refuses this firmware: Wi-Fi stops at the next chip restart. ` +
      `Flash firmware ${driver} onto the chip (the dashboard's firmware upload), or rebuild the driver ` +
      `for ${firmware} with scripts/install.sh, which also updates the setting.`,
  };
}

function healthOf(state: ReleaseState): ComponentHealth {
  switch (state.status) {
    case 'off':
      return { status: 'off', detail: 'NESTBOX_ESP_HOSTED_RELEASE is not set' };
    case 'unknown':
      return {
        status: 'ok',
        detail: state.detail ?? 'waiting for the coprocessor to tell its release',
        driver: state.driver,
      };
    case 'match':
      return { status: 'ok', driver: state.driver, firmware: state.firmware };
    case 'mismatch':
      return { status: 'degraded', detail: state.detail ?? undefined, driver: state.driver, firmware: state.firmware };
  }
}
