/** SQL for read markers (one per account and timeline, with an optimistic-lock version). */
import type { SocialContext } from '../context.js';
import { dialectFor, idList, rawRows } from '../../store/dialect.js';

export interface MarkerRow {
  timeline: string;
  last_read_id: string;
  version: number;
  updated_at: string;
}

export class MarkersRepo {
  constructor(private readonly ctx: SocialContext) {}

  list(accountId: string, timelines: readonly string[]): Promise<MarkerRow[]> {
    return this.ctx.reader.all<MarkerRow>(
      `SELECT timeline, CAST(last_read_id AS TEXT) AS last_read_id, version, updated_at FROM markers
      WHERE account_id = ? AND timeline IN (SELECT t.value FROM ${dialectFor(this.ctx.reader.engine).idsTable('t')})`,
      [accountId, idList(timelines)],
    );
  }

  /** Creates the marker (version 0) or moves it when it still has `expectedVersion`; null on a stale version. */
  async save(
    accountId: string,
    timeline: string,
    lastReadId: string,
    expectedVersion: number | null,
  ): Promise<MarkerRow | null> {
    const now = new Date(this.ctx.now()).toISOString();
    return this.ctx.db.transaction(async (trx) => {
      const rows = await rawRows<{ last_read_id: string; version: number }>(
        trx,
        `SELECT CAST(last_read_id AS TEXT) AS last_read_id, version FROM markers WHERE account_id = ? AND timeline = ?`,
        [accountId, timeline],
      );
      const current = rows[0];
      if (!current) {
        await trx.raw(
          `INSERT INTO markers (account_id, timeline, last_read_id, version, updated_at) VALUES (?, ?, ?, 0, ?)`,
          [accountId, timeline, lastReadId, now],
        );
        return { timeline, last_read_id: lastReadId, version: 0, updated_at: now };
      }
      if (expectedVersion !== null && expectedVersion !== current.version) return null;
      if (current.last_read_id === lastReadId) {
        const same = await rawRows<{ updated_at: string }>(
          trx,
          `SELECT updated_at FROM markers WHERE account_id = ? AND timeline = ?`,
          [accountId, timeline],
        );
        return { timeline, last_read_id: lastReadId, version: current.version, updated_at: same[0].updated_at };
      }
      const updated = await rawRows<{ version: number }>(
        trx,
        `UPDATE markers SET last_read_id = ?, version = version + 1, updated_at = ?
        WHERE account_id = ? AND timeline = ? AND version = ? RETURNING version`,
        [lastReadId, now, accountId, timeline, current.version],
      );
      return updated[0] ? { timeline, last_read_id: lastReadId, version: updated[0].version, updated_at: now } : null;
    });
  }
}
