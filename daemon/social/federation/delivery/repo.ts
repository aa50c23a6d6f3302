/** SQL of the delivery queue and of the peers' availability. */
import type { Db } from '../../../store/db.js';
import { dialectOf, idList, rawRows } from '../../../store/dialect.js';

export interface DeliveryRow {
  id: number;
  inbox: string;
  domain: string;
  /** null: sent by the instance actor. */
  sender_account_id: string | null;
  body: string;
  attempts: number;
  created_at: number;
}

export class DeliveryRepo {
  constructor(private readonly db: Db) {}

  /**
   * Queues `body` for each inbox whose domain is not marked unavailable, in one statement (the body
   * bound once): due now, or with `claimedUntil` already the caller's until then (as `claim` leaves
   * them); the rows queued.
   */
  async enqueue(
    inboxes: ReadonlyArray<{ inbox: string; domain: string }>,
    senderId: string | null,
    body: string,
    now: number,
    claimedUntil = now,
  ): Promise<DeliveryRow[]> {
    if (inboxes.length === 0) return [];
    const queued = await rawRows<{ id: number; inbox: string; domain: string }>(
      this.db,
      `INSERT INTO federation_deliveries (inbox, domain, sender_account_id, body, next_attempt_at, created_at)
      SELECT q.key, q.value, CAST(? AS BIGINT), ?, CAST(? AS BIGINT), CAST(? AS BIGINT) FROM ${dialectOf(this.db).entriesTable('q')}
      WHERE NOT EXISTS (SELECT 1 FROM federation_domains d WHERE d.domain = q.value AND d.unavailable_at IS NOT NULL)
      RETURNING id, inbox, domain`,
      [
        senderId,
        body,
        claimedUntil,
        now,
        JSON.stringify(Object.fromEntries(inboxes.map((row) => [row.inbox, row.domain]))),
      ],
    );
    return queued
      .map((row) => ({ ...row, sender_account_id: senderId, body, attempts: 0, created_at: now }))
      .sort((a, b) => a.id - b.id);
  }

  /**
   * Takes up to `limit` due deliveries (the oldest due first) for this process: each is due again
   * only at `leaseUntil` (a process that dies holding it leaves it to the others, or to its own
   * restart), one statement; on PostgreSQL rows another process is claiming are passed over.
   */
  async claim(now: number, leaseUntil: number, limit: number): Promise<DeliveryRow[]> {
    const rows = await rawRows<DeliveryRow>(
      this.db,
      `UPDATE federation_deliveries SET next_attempt_at = ? WHERE id IN (
        SELECT id FROM federation_deliveries WHERE next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?
        ${dialectOf(this.db).skipLocked})
      RETURNING id, inbox, domain, CAST(sender_account_id AS TEXT) AS sender_account_id, body, attempts, created_at`,
      [leaseUntil, now, limit],
    );
    return rows.sort((a, b) => a.id - b.id);
  }

  async nextDueAt(): Promise<number | null> {
    const rows = await rawRows<{ at: number | null }>(
      this.db,
      `SELECT min(next_attempt_at) AS at FROM federation_deliveries`,
    );
    return rows[0]?.at ?? null;
  }

  async pending(): Promise<number> {
    const rows = await rawRows<{ n: number }>(this.db, `SELECT count(*) AS n FROM federation_deliveries`);
    return rows[0]?.n ?? 0;
  }

  async remove(id: number): Promise<void> {
    await this.removeAll([id]);
  }

  /** Deliveries done (sent, refused for good or dropped), in one statement. */
  async removeAll(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.raw(`DELETE FROM federation_deliveries WHERE id IN ${dialectOf(this.db).idSet()}`, [idList(ids)]);
  }

  async reschedule(id: number, attempts: number, at: number, error: string): Promise<void> {
    await this.db.raw(
      `UPDATE federation_deliveries SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?`,
      [attempts, at, error.slice(0, 500), id],
    );
  }

  /** Everything waiting becomes due now (after a restart or when the box is back online). */
  async retryAllNow(now: number): Promise<void> {
    await this.db.raw(`UPDATE federation_deliveries SET next_attempt_at = ? WHERE next_attempt_at > ?`, [now, now]);
  }

  async unavailableDomains(domains: readonly string[]): Promise<Set<string>> {
    if (domains.length === 0) return new Set();
    const rows = await rawRows<{ domain: string }>(
      this.db,
      `SELECT domain FROM federation_domains
      WHERE unavailable_at IS NOT NULL AND domain IN (SELECT d.value FROM ${dialectOf(this.db).idsTable('d')})`,
      [idList(domains)],
    );
    return new Set(rows.map((row) => row.domain));
  }

  /** Gives up on a peer: it is marked unavailable and its waiting deliveries are dropped. */
  async markUnavailable(domain: string, at: string): Promise<number> {
    return this.db.transaction(async (trx) => {
      await trx.raw(
        `INSERT INTO federation_domains (domain, unavailable_at, last_failure_at) VALUES (?, ?, ?)
        ON CONFLICT (domain) DO UPDATE SET unavailable_at = excluded.unavailable_at, last_failure_at = excluded.last_failure_at`,
        [domain, at, at],
      );
      const dropped = await rawRows(trx, `DELETE FROM federation_deliveries WHERE domain = ? RETURNING id`, [domain]);
      return dropped.length;
    });
  }

  async markAvailable(domain: string, at: string): Promise<void> {
    await this.db.raw(
      `INSERT INTO federation_domains (domain, last_success_at) VALUES (?, ?)
      ON CONFLICT (domain) DO UPDATE SET unavailable_at = NULL, last_success_at = excluded.last_success_at`,
      [domain, at],
    );
  }

  async isUnavailable(domain: string): Promise<boolean> {
    return (await this.unavailableDomains([domain])).has(domain);
  }
}
