/**
 * The durable delivery queue: every activity is written to the database (one row per inbox) before any
 * attempt, so a restart or a power cut loses nothing; a row is deleted only once the peer took it.
 * Failures back off exponentially for days, then the peer's domain is marked unavailable. At most
 * `perDomain` requests run per peer and `total` overall. Nothing is sent while the box is offline.
 */
import type { Db } from '../../../store/db.js';
import type { Logger } from '../../../log/logger.js';
import { ForbiddenAddressError } from '../net/address-policy.js';
import type { PeerClient } from '../net/client.js';
import type { SigningKey } from '../signatures/sign.js';
import { hostOf } from '../objects/ld.js';
import type { OnlineSignal } from './online.js';
import { DeliveryRepo, type DeliveryRow } from './repo.js';
import { DoneBatches } from './done-batches.js';

export interface DeliveryQueueOptions {
  db: Db;
  client: PeerClient;
  log: Logger;
  online: OnlineSignal;
  /** The signing key of a local account, or of the instance actor for null. */
  signingKey(accountId: string | null): Promise<SigningKey>;
  perDomain?: number;
  total?: number;
  /** Retry schedule: first delay, ceiling, and attempts before giving up. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  maxAttempts?: number;
  /** A delivery is given up only once it is also this old (restarts and flaps retry early). */
  giveUpAfterMs?: number;
  now?: () => number;
}

export const RETRY_BASE_MS = 30_000;
export const RETRY_MAX_MS = 12 * 60 * 60 * 1000;
/** 30 s doubling to 12 h, 16 attempts: about three days before a peer is given up. */
export const MAX_ATTEMPTS = 16;
export const GIVE_UP_AFTER_MS = 2 * 24 * 60 * 60 * 1000;
/** How long a claimed delivery is this process's before it is due again for anyone. */
export const CLAIM_LEASE_MS = 10 * 60 * 1000;
/** Claimed beyond the free slots, so that a peer at its limit does not hold up the others. */
const CLAIM_AHEAD = 64;

/** Statuses a peer will answer the same way however often we ask: not retried. */
function permanent(status: number): boolean {
  return status >= 400 && status < 500 && ![401, 408, 429].includes(status);
}

export function retryDelay(
  attempts: number,
  baseMs = RETRY_BASE_MS,
  maxMs = RETRY_MAX_MS,
  random = Math.random,
): number {
  const delay = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), maxMs);
  return Math.round(delay * (1 + random() * 0.2));
}

export class DeliveryQueue {
  readonly repo: DeliveryRepo;
  private readonly done: DoneBatches;
  private readonly perDomain: number;
  private readonly total: number;
  private readonly now: () => number;
  private readonly inFlight = new Map<number, Promise<void>>();
  /** Claimed, waiting for a free slot (their peer at its limit). */
  private waiting: DeliveryRow[] = [];
  private readonly domainLoad = new Map<string, number>();
  private readonly knownGood = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private pumping = false;
  private again = false;
  /**
   * The last claim took every due delivery (fewer than it asked for), and nothing has come due
   * since: a pump after a delivery ends need not ask again. `wakes` counts what can make one due.
   */
  private drained = false;
  private wakes = 0;
  /**
   * When the earliest delivery left in the table is due (null: none), as last read and kept
   * current since by this process's own retries; undefined when it must be read again.
   */
  private nextDue: number | null | undefined = undefined;
  private running = false;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly options: DeliveryQueueOptions) {
    this.repo = new DeliveryRepo(options.db);
    this.done = new DoneBatches((ids) => this.repo.removeAll(ids));
    this.perDomain = options.perDomain ?? 4;
    this.total = options.total ?? 16;
    this.now = options.now ?? Date.now;
  }

  /** Resumes what was queued before a stop: everything waiting is due at once. */
  async start(): Promise<void> {
    this.running = true;
    await this.repo.retryAllNow(this.now());
    this.unsubscribe = this.options.online.subscribe((online) => {
      this.options.log.info(online ? 'deliveries resumed: the box is online' : 'deliveries paused: the box is offline');
      if (online)
        void this.repo.retryAllNow(this.now()).then(
          () => this.wake(),
          (error) => this.options.log.warn('queue resume failed', { error }),
        );
    });
    if (!this.options.online.isOnline()) this.options.log.info('deliveries paused: the box is offline');
    this.wake();
  }

  /** Stops sending; what is in flight may finish for up to `graceMs`, the rest stays queued. */
  async stop(graceMs = 2000): Promise<void> {
    this.running = false;
    this.waiting = []; // still claimed in the table: due again at the restart (start())
    this.unsubscribe?.();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let timeout: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight.values()]),
      new Promise((resolve) => {
        timeout = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timeout);
  }

  /**
   * Queues one activity for each inbox (unavailable peers are skipped) and starts sending; signed by
   * the local account `senderId`, or by the instance actor when it is null.
   */
  async enqueue(senderId: string | null, inboxes: readonly string[], activity: object): Promise<number> {
    const unique = [...new Set(inboxes)];
    const withDomain = unique
      .map((inbox) => ({ inbox, domain: hostOf(inbox) }))
      .filter((row): row is { inbox: string; domain: string } => row.domain !== null);
    const now = this.now();
    // Claimed as they are queued while this process sends and has room: no claim of its own after.
    if (this.running && this.options.online.isOnline() && this.waiting.length < CLAIM_AHEAD) {
      const rows = await this.repo.enqueue(withDomain, senderId, JSON.stringify(activity), now, now + CLAIM_LEASE_MS);
      this.waiting.push(...rows);
      this.kick();
      return rows.length;
    }
    const queued = await this.repo.enqueue(withDomain, senderId, JSON.stringify(activity), now);
    this.wake();
    return queued.length;
  }

  /** A peer that talks to us again is available again. */
  async markAvailable(domain: string): Promise<void> {
    if (this.knownGood.has(domain)) return;
    await this.repo.markAvailable(domain, new Date(this.now()).toISOString());
    this.knownGood.add(domain);
  }

  status(): { paused: boolean; inFlight: number } {
    return { paused: !this.options.online.isOnline(), inFlight: this.inFlight.size };
  }

  /** Something may have come due (queued, retried, back online): the next pump claims again. */
  private wake(): void {
    this.wakes += 1;
    this.drained = false;
    this.nextDue = undefined;
    this.kick();
  }

  /** Runs a pump now (or right after the current one). */
  kick(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump()
      .catch((error) => this.options.log.warn('delivery queue pump failed', { error }))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async pump(): Promise<void> {
    if (!this.running || !this.options.online.isOnline()) return;
    this.dispatchWaiting();
    const room = this.total + CLAIM_AHEAD - this.inFlight.size - this.waiting.length;
    if (this.inFlight.size < this.total && room > 0 && !this.drained) {
      const now = this.now();
      const wakes = this.wakes;
      const held = new Set([...this.inFlight.keys(), ...this.waiting.map((row) => row.id)]);
      // A delivery made due again while held here (back online) is claimed again: kept once.
      const claimed = await this.repo.claim(now, now + CLAIM_LEASE_MS, room);
      this.drained = claimed.length < room && wakes === this.wakes;
      this.waiting.push(...claimed.filter((row) => !held.has(row.id)));
      this.dispatchWaiting();
    }
    if (this.inFlight.size === 0) await this.scheduleNext();
  }

  /** Sends what was claimed while slots are free, as many per peer as it may take. */
  private dispatchWaiting(): void {
    const left: DeliveryRow[] = [];
    for (const row of this.waiting) {
      if (this.inFlight.size < this.total && (this.domainLoad.get(row.domain) ?? 0) < this.perDomain)
        this.dispatch(row);
      else left.push(row);
    }
    this.waiting = left;
  }

  private dispatch(row: DeliveryRow): void {
    this.domainLoad.set(row.domain, (this.domainLoad.get(row.domain) ?? 0) + 1);
    const job = this.attempt(row)
      .catch((error) => {
        this.nextDue = undefined; // the row may still be there, due when its lease ends
        this.options.log.warn('delivery bookkeeping failed', { id: row.id, error });
      })
      .finally(() => {
        this.inFlight.delete(row.id);
        this.domainLoad.set(row.domain, (this.domainLoad.get(row.domain) ?? 1) - 1);
        this.kick();
      });
    this.inFlight.set(row.id, job);
  }

  private async attempt(row: DeliveryRow): Promise<void> {
    const log = this.options.log;
    let failure: string;
    let giveUp = false;
    try {
      const key = await this.options.signingKey(row.sender_account_id);
      const response = await this.options.client.post(row.inbox, row.body, key);
      if (response.status >= 200 && response.status < 300) {
        await this.done.remove(row.id);
        log.debug('delivered', { inbox: row.inbox, status: response.status, attempts: row.attempts + 1 });
        if (!this.knownGood.has(row.domain)) await this.markAvailable(row.domain);
        return;
      }
      failure = `HTTP ${response.status}`;
      if (permanent(response.status)) {
        await this.done.remove(row.id);
        log.warn('delivery refused by the peer; not retried', { inbox: row.inbox, status: response.status });
        return;
      }
    } catch (error) {
      failure = (error as Error).message;
      giveUp = error instanceof ForbiddenAddressError;
    }
    if (!this.running) return; // stopping: the row stays as it was and is retried after the restart
    const attempts = row.attempts + 1;
    const maxAttempts = this.options.maxAttempts ?? MAX_ATTEMPTS;
    this.knownGood.delete(row.domain);
    if (giveUp) {
      await this.done.remove(row.id);
      log.warn('delivery dropped', { inbox: row.inbox, error: failure });
    } else if (
      attempts >= maxAttempts &&
      this.now() - row.created_at >= (this.options.giveUpAfterMs ?? GIVE_UP_AFTER_MS)
    ) {
      const dropped = await this.repo.markUnavailable(row.domain, new Date(this.now()).toISOString());
      this.waiting = this.waiting.filter((other) => other.domain !== row.domain);
      log.warn('peer marked unavailable after repeated delivery failures', {
        domain: row.domain,
        attempts,
        dropped,
        error: failure,
      });
    } else {
      const delay = retryDelay(attempts, this.options.retryBaseMs, this.options.retryMaxMs);
      const at = this.now() + delay;
      await this.repo.reschedule(row.id, attempts, at, failure);
      if (this.nextDue !== undefined) this.nextDue = Math.min(this.nextDue ?? at, at);
      log.info('delivery failed; will retry', {
        inbox: row.inbox,
        attempts,
        retry_in_s: Math.round(delay / 1000),
        error: failure,
      });
    }
  }

  private async scheduleNext(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // Read again only after something this process did not track (queued unclaimed, retried all, a timer).
    const at = this.nextDue !== undefined ? this.nextDue : await this.repo.nextDueAt();
    this.nextDue = at;
    if (at === null || !this.running) return;
    // Timers beyond ~24 days overflow; wake at least hourly.
    const wait = Math.min(Math.max(0, at - this.now()), 60 * 60 * 1000);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wake();
    }, wait);
    this.timer.unref();
  }
}
