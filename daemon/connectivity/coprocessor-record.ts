/**
 * The one writer of DeviceState's `coprocessor` section. The parts of the connectivity subsystem
 * that learn something about the chip tell it here, each through its own method: the runner (the
 * link, heartbeats, the firmware's identity, whether the chip answers, the radio read at an
 * initialisation), the device commands (a radio setting applied), the firmware update (OTA
 * progress), the firmware files, the release check and the chip recovery. Rules that span them
 * live here too: an OTA waiting for the reboot is done once the chip is initialised again.
 */
import type {
  ChipResetState,
  CoprocessorState,
  DeviceState,
  FirmwareFileState,
  OtaState,
  ReleaseState,
} from '../device/state.js';
import type { FirmwareIdentity } from './firmware-model.js';

export class CoprocessorRecord {
  constructor(private readonly device: DeviceState) {}

  get(): Readonly<CoprocessorState> {
    return this.device.get().coprocessor;
  }

  /** The transport opened (or reopened) or closed. */
  link(up: boolean): void {
    this.write({ link: up ? 'up' : 'down' });
  }

  heartbeat(number: number, at: number): void {
    this.write({ last_heartbeat: new Date(at).toISOString(), heartbeat_number: number });
  }

  /** The chip answers: initialised, and its heartbeats or probes in their window. */
  responding(answers: boolean): void {
    this.write({ responding: answers });
  }

  identified(identity: FirmwareIdentity): void {
    this.write(identity);
  }

  /** An initialisation went through: the link is up, the radio as read; an update waiting for the reboot is done. */
  initialised(radio: { tx_power_dbm: number; power_save: string }): void {
    const ota = this.get().ota;
    if (ota.phase === 'rebooting') this.write({ ota: { ...ota, phase: 'done' } });
    this.write({ link: 'up', ...radio });
  }

  /** A radio setting the owner changed, as the chip reads it back. */
  radioApplied(radio: { tx_power_dbm: number } | { power_save: string }): void {
    this.write(radio);
  }

  ota(state: OtaState): void {
    this.write({ ota: state });
  }

  /** The whole percent of an OTA moved on. */
  otaProgressed(progress: { bytes: number; total: number; percent: number }): void {
    this.device.publishEvent('ota_progress', progress);
  }

  firmwareFile(file: FirmwareFileState | null): void {
    this.write({ firmware_file: file });
  }

  release(state: ReleaseState): void {
    this.write({ release: state });
  }

  /** A reset the daemon made of a lost chip (counted only when it worked), published as `coprocessor_reset`. */
  chipReset(reset: ChipResetState): number {
    const resets = this.get().resets + (reset.ok ? 1 : 0);
    this.write({ resets, last_reset: reset });
    this.device.publishEvent('coprocessor_reset', {
      by: 'daemon',
      reason: reset.reason,
      method: reset.method,
      ok: reset.ok,
      resets,
    });
    return resets;
  }

  private write(patch: Partial<CoprocessorState>): void {
    this.device.update({ coprocessor: patch });
  }
}
