/**
 * Chip recovery without a person: a coprocessor lost (no heartbeats, no answers, or its device
 * gone) for `afterMs` is reset through the link's resetter (a module reload on esps:, the
 * simulator's power cycle on sim), at most once per `windowMs`. Each reset is counted in
 * DeviceState `coprocessor.resets`, logged with its reason and published as `coprocessor_reset`;
 * the runner sees the chip come back as it would after any restart. Without a resetter (serial:)
 * a long loss is only logged: the daemon keeps asking, as before.
 */
import type { ChipResetter } from '../coproc/chip-reset.js';
import type { Logger } from '../log/logger.js';
import type { ConnectivityClock } from './clock.js';
import type { CoprocessorRecord } from './coprocessor-record.js';

/** The reset window Espressif's hardware needs nothing of: it keeps a flapping chip from being reset in a loop. */
export const RESET_WINDOW_MS = 10 * 60_000;

export interface ChipRecoveryOptions {
  /** null: this link has no host-side reset. */
  resetter: ChipResetter | null;
  /** Lost this long before a reset (real ms, already time-scaled). */
  afterMs: number;
  /** At most one reset per this long (real ms, already time-scaled). */
  windowMs: number;
  coprocessor: Pick<CoprocessorRecord, 'chipReset'>;
  log: Logger;
  clock: ConnectivityClock;
}

export class ChipRecovery {
  private lostSince: number | null = null;
  private lastResetAt: number | null = null;
  private timer: unknown = null;
  private resetting = false;
  private stopped = false;
  /** This loss was already reported as beyond help (no resetter). */
  private reported = false;

  constructor(private readonly options: ChipRecoveryOptions) {}

  /** The connectivity runner's verdict after each of its steps: is the chip lost? */
  observe(lost: boolean): void {
    if (this.stopped) return;
    if (!lost) {
      this.lostSince = null;
      this.reported = false;
      this.cancel();
      return;
    }
    if (this.lostSince !== null) return;
    this.lostSince = this.options.clock.now();
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  /** When the next reset may happen: lost long enough, and the window since the last one over. */
  private dueAt(): number | null {
    if (this.lostSince === null) return null;
    const lostLongEnough = this.lostSince + this.options.afterMs;
    const windowOver = this.lastResetAt === null ? lostLongEnough : this.lastResetAt + this.options.windowMs;
    return Math.max(lostLongEnough, windowOver);
  }

  private arm(): void {
    this.cancel();
    const due = this.dueAt();
    if (due === null || this.resetting) return;
    const { clock } = this.options;
    this.timer = clock.setTimeout(
      () => {
        this.timer = null;
        void this.fire();
      },
      Math.max(0, due - clock.now()),
    );
  }

  private cancel(): void {
    if (this.timer !== null) this.options.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private async fire(): Promise<void> {
    const { resetter, coprocessor, log, clock } = this.options;
    if (this.stopped || this.lostSince === null) return;
    const lostS = Math.round((clock.now() - this.lostSince) / 1000);
    const reason = `the coprocessor had not answered for ${lostS} s`;
    if (!resetter) {
      if (!this.reported) log.warn(`${reason}; this link has no reset line the daemon drives`, { lost_s: lostS });
      this.reported = true;
      return;
    }
    this.resetting = true;
    this.lastResetAt = clock.now();
    const at = new Date(this.lastResetAt).toISOString();
    log.warn('resetting the coprocessor', { reason, method: resetter.method });
    let error: string | null = null;
    try {
      await resetter.reset(reason);
    } catch (failure) {
      error = (failure as Error).message;
    }
    this.resetting = false;
    const resets = coprocessor.chipReset({ at, reason, method: resetter.method, ok: error === null, error });
    if (error) log.error('coprocessor reset failed', { reason, method: resetter.method, error });
    else log.info('coprocessor reset done; waiting for it to answer', { method: resetter.method, resets });
    // Still lost after the window: the next try.
    if (!this.stopped) this.arm();
  }
}
