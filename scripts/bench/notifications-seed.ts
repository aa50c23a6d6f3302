/**
 * The notifications benchmark's data set (scripts/bench/notifications.ts): 1,000 accounts, 2,000
 * statuses and the newest `size` notifications of a `full`-row series over a year, one in ten for
 * the heavy account, whose token is returned.
 */
import type { loadConfig } from '../../daemon/config.js';
import { AdminTool } from '../../daemon/social/admin.js';

/** One notification in this many belongs to the heavy account. */
const HEAVY_SHARE = 10;
const ACCOUNTS = 1000;
const STATUSES = 2000;

/**
 * Bulk seeding in SQL: accounts and statuses from recursive series, notifications from one
 * INSERT … SELECT in a transaction. Notification i (oldest first) belongs to the heavy account
 * when i % 10 = 0; its type follows i, its group key uses 12-hour windows.
 */
export async function seed(config: ReturnType<typeof loadConfig>, size: number, full: number): Promise<string> {
  const admin = await AdminTool.open(config);
  try {
    const heavy = await admin.createAccount({
      username: 'heavy',
      email: 'heavy@bench.test',
      password: 'bench password',
      owner: true,
    });
    const { accessToken } = await admin.token({ username: 'heavy', scopes: 'read write' });
    const db = admin.social.ctx.db;
    const yearMs = 365 * 24 * 3600_000;
    const end = Date.now() - 60_000;
    const start = end - yearMs;
    // Rows kept: the newest `size` of the full series, so both sizes share the same first page.
    const first = full - size;
    // Bulk load without the notification indexes, then build them once from sorted data: far
    // faster than keeping four B-trees up to date row by row.
    const indexes = await db.raw<Array<{ name: string; sql: string }>>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'notifications' AND sql IS NOT NULL`,
    );
    await db.raw('PRAGMA cache_size = -65536');
    await db.transaction(async (trx) => {
      for (const index of indexes) await trx.raw(`DROP INDEX ${index.name}`);
      await trx.raw(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO accounts (id, username, uri, url, created_at, updated_at)
        SELECT (? + i) * 65536, 'user' || i, ? || '/users/user' || i, ? || '/@user' || i, ?, ? FROM n`,
        [
          ACCOUNTS - 1,
          start,
          config.baseUrl,
          config.baseUrl,
          new Date(start).toISOString(),
          new Date(start).toISOString(),
        ],
      );
      await trx.raw(
        `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO statuses (id, account_id, uri, url, text, content, visibility, created_at, updated_at)
        SELECT (? + i * 1000) * 65536 + 1, CASE WHEN i < ? THEN ? ELSE (? + 1 + (i % ?)) * 65536 END,
               ? || '/s/' || i, ? || '/s/' || i, 'status ' || i, '<p>status ' || i || '</p>', 'public',
               strftime('%Y-%m-%dT%H:%M:%fZ', (? + i * 1000) / 1000.0, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', (? + i * 1000) / 1000.0, 'unixepoch')
          FROM n`,
        [
          STATUSES * 2 - 1,
          start,
          STATUSES,
          heavy.id,
          start,
          ACCOUNTS - 1,
          config.baseUrl,
          config.baseUrl,
          start,
          start,
        ],
      );
      await trx.raw(
        `WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?),
        rows AS (
          SELECT i,
            (i % ${HEAVY_SHARE}) = 0 AS heavy,
            ? + CAST(i AS REAL) * ? / ? AS ms,
            (i * 7919) % 100 AS pick,
            (i * 2654435761) % ? AS target,
            (? + 1 + (i * 48271) % ?) * 65536 AS sender
          FROM n)
        INSERT INTO notifications (account_id, from_account_id, type, status_id, group_key, created_at)
        SELECT
          CASE WHEN heavy THEN ? ELSE (? + 1 + (i % ?)) * 65536 END,
          sender,
          CASE WHEN NOT heavy THEN CASE WHEN pick < 50 THEN 'follow' ELSE 'mention' END
               WHEN pick < 55 THEN 'favourite' WHEN pick < 75 THEN 'reblog' WHEN pick < 85 THEN 'follow' ELSE 'mention' END,
          CASE WHEN heavy AND pick < 75 THEN (? + target * 1000) * 65536 + 1
               WHEN (heavy AND pick >= 85) OR (NOT heavy AND pick >= 50) THEN (? + (? + target) * 1000) * 65536 + 1 END,
          CASE WHEN heavy AND pick < 55 THEN 'favourite-' || CAST((? + target * 1000) * 65536 + 1 AS INTEGER) || '-' || (CAST(ms / 3600000 AS INTEGER) / 12 * 12)
               WHEN heavy AND pick < 75 THEN 'reblog-' || CAST((? + target * 1000) * 65536 + 1 AS INTEGER) || '-' || (CAST(ms / 3600000 AS INTEGER) / 12 * 12)
               WHEN pick < 85 AND (heavy OR pick < 50) THEN 'follow-' || (CAST(ms / 3600000 AS INTEGER) / 12 * 12) END,
          strftime('%Y-%m-%dT%H:%M:%fZ', ms / 1000.0, 'unixepoch')
        FROM rows`,
        [
          first,
          full - 1,
          start,
          yearMs,
          full,
          STATUSES,
          start,
          ACCOUNTS - 1,
          heavy.id,
          start,
          ACCOUNTS - 1,
          start,
          start,
          STATUSES,
          start,
          start,
        ],
      );
      for (const index of indexes) await trx.raw(index.sql);
    });
    await db.raw('ANALYZE');
    return accessToken;
  } finally {
    await admin.close();
  }
}
