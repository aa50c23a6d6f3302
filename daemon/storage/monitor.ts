/**
 * Watches the free space of the data directory's filesystem (statfs: a few microseconds, never
 * per request) on a schedule, and at once when a write failed for lack of space. It writes the
 * result into DeviceState (`storage`, which MQTT and the dashboard read) and reports the
 * `storage` health component. Nothing has to be restarted when space returns: the next check
 * clears the state, and writes never stopped being tried.
 */
import { statfs } from 'node:fs/promises';
import type { DeviceState, StorageState } from '../device/state.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';

export const MIB = 1024 * 1024;
/** While all is well a minute is soon enough: a disk does not fill from 128 MB in a minute by posting. */
const CHECK_EVERY_MS = 60_000;
/** Low or full: look often, so recovery shows within seconds of someone freeing space. */
const CHECK_WHEN_SHORT_MS = 5_000;
/** A burst of failing writes causes one look, not one each. */
const RECHECK_AFTER_FAILURE_MS = 1_000;
/** After a failure, "full" ends once this much more is free than there was when it failed. */
const RECOVERY_MARGIN_BYTES = MIB;

export interface StorageMonitorOptions {
  /** The data directory: its filesystem holds the database, media and backups. */
  dir: string;
  /** Below this many free bytes the box warns (health degraded, state `low`); 0 turns that off. */
  minFreeBytes: number;
  device: DeviceState;
  reportHealth: (health: ComponentHealth) => void;
  log: Logger;
}

export interface FreeSpace {
  free: number;
  total: number;
}

export async function freeSpace(dir: string): Promise<FreeSpace> {
  const stats = await statfs(dir);
  return { free: stats.bavail * stats.bsize, total: stats.blocks * stats.bsize };
}

export class StorageMonitor {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** Free bytes seen right after a write failed for lack of space; null while none has. */
  private failedAtFree: number | null = null;
  private failurePending = false;
  private lastCheckAt = 0;

  constructor(private readonly options: StorageMonitorOptions) {}

  async start(): Promise<void> {
    await this.check();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** A write failed with ENOSPC, EDQUOT or SQLITE_FULL: the state says `full` from the next look, taken now. */
  outOfSpace(): void {
    this.failurePending = true;
    if (Date.now() - this.lastCheckAt >= RECHECK_AFTER_FAILURE_MS || this.failedAtFree === null) void this.check();
  }

  /** Free bytes now, for work that needs room (a backup as large as the database). */
  async free(): Promise<number> {
    return (await freeSpace(this.options.dir)).free;
  }

  /** Looks at the free space now and publishes the result; concurrent calls share one look. */
  check(): Promise<void> {
    this.running ??= this.look().finally(() => {
      this.running = null;
      // A failure reported while this look was under way gets its own look.
      if (this.failurePending && !this.stopped) void this.check();
    });
    return this.running;
  }

  private async look(): Promise<void> {
    const { log, device } = this.options;
    this.lastCheckAt = Date.now();
    const previous = device.get().storage.status;
    let state: StorageState;
    try {
      state = this.classify(await freeSpace(this.options.dir));
    } catch (error) {
      log.warn('free space unknown', { dir: this.options.dir, error });
      state = { ...this.emptyState(), detail: `free space unknown: ${(error as Error).message}` };
    }
    device.update({ storage: state });
    this.options.reportHealth(toHealth(state));
    if (state.status !== previous) this.logChange(previous, state);
    this.schedule(state.status === 'ok' ? CHECK_EVERY_MS : CHECK_WHEN_SHORT_MS);
  }

  private classify({ free, total }: FreeSpace): StorageState {
    const minFree = this.options.minFreeBytes;
    if (this.failurePending) {
      this.failurePending = false;
      this.failedAtFree = Math.min(this.failedAtFree ?? Infinity, free);
    }
    if (this.failedAtFree !== null && free >= this.failedAtFree + RECOVERY_MARGIN_BYTES) this.failedAtFree = null;
    const base = { free_bytes: free, total_bytes: total, min_free_bytes: minFree };
    if (this.failedAtFree !== null || free === 0) {
      return {
        ...base,
        status: 'full',
        detail: `the data disk is full (${megabytes(free)} free of ${megabytes(total)}): new posts, uploads and other changes are refused until space is freed`,
      };
    }
    if (free < minFree) {
      return {
        ...base,
        status: 'low',
        detail: `only ${megabytes(free)} free on the data disk (warning below ${megabytes(minFree)}): free some space before it fills up`,
      };
    }
    return { ...base, status: 'ok', detail: null };
  }

  private emptyState(): StorageState {
    return {
      status: 'unknown',
      free_bytes: null,
      total_bytes: null,
      min_free_bytes: this.options.minFreeBytes,
      detail: null,
    };
  }

  private logChange(previous: string, state: StorageState): void {
    const fields = {
      from: previous,
      to: state.status,
      free_bytes: state.free_bytes,
      min_free_bytes: state.min_free_bytes,
    };
    if (state.status === 'ok') this.options.log.info('storage ok', fields);
    else this.options.log.warn(`storage ${state.status}`, { ...fields, detail: state.detail });
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.check(), ms);
    this.timer.unref();
  }
}

function toHealth(state: StorageState): ComponentHealth {
  const facts = { free_bytes: state.free_bytes, total_bytes: state.total_bytes, min_free_bytes: state.min_free_bytes };
  if (state.status === 'ok') return { status: 'ok', ...facts };
  return { status: 'degraded', detail: state.detail ?? 'free space unknown', ...facts };
}

function megabytes(bytes: number): string {
  const mb = bytes / MIB;
  return `${mb < 10 ? mb.toFixed(1) : Math.round(mb)} MB`;
}
