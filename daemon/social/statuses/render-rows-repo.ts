/**
 * The rows the status renderer reads (statuses/serialize.ts through render/status-rows.ts): each
 * status's render row where the caller's version is not current, its render version, the viewer's
 * flags and whether the viewer may see it (the one rule, visibility.ts); with the page's accounts
 * in the same statement where both are asked for.
 */
import type { Dialect } from '../../store/dialect.js';
import type { SocialContext } from '../context.js';
import type { AccountRow } from '../accounts/repo.js';
import type { ChangedRow } from '../render/versioned-cache.js';
import { ChangedRowsPair, ChangedRowsQuery, type ChangedRowsSql } from '../render/changed-rows.js';
import { CHANGED_ACCOUNT_ROWS } from '../accounts/repo.js';
import { visibleBy } from './visibility.js';
import {
  MAX_FLAGGED_CHOICES,
  RENDER_FIELDS,
  STATUS_COLUMNS,
  VIEWER_FLAG,
  VOTE_CHOICE_SHIFT,
  type ChangedRenderRow,
} from './repo.js';

/** The flags of viewer `viewer` on status `s`, a lookup per flag (SQLite's form, `Dialect.looksUpAllRowsAtOnce`). */
const flagsPerStatus = (viewer: string) => `
        -- reblog_of_id IS NOT NULL: the reblog is looked up in the partial index of reblogs.
        CAST(EXISTS (SELECT 1 FROM favourites WHERE account_id = ${viewer} AND status_id = s.id) AS INTEGER) * ${VIEWER_FLAG.favourited}
        + CAST(EXISTS (SELECT 1 FROM statuses r WHERE r.account_id = ${viewer} AND r.reblog_of_id = s.id AND r.reblog_of_id IS NOT NULL AND r.deleted_at IS NULL) AS INTEGER) * ${VIEWER_FLAG.reblogged}
        + CAST(EXISTS (SELECT 1 FROM bookmarks WHERE account_id = ${viewer} AND status_id = s.id) AS INTEGER) * ${VIEWER_FLAG.bookmarked}
        + CAST(EXISTS (SELECT 1 FROM status_pins WHERE account_id = ${viewer} AND status_id = s.id) AS INTEGER) * ${VIEWER_FLAG.pinned}
        + CAST(EXISTS (SELECT 1 FROM conversation_mutes WHERE account_id = ${viewer} AND conversation_id = s.conversation_id) AS INTEGER) * ${VIEWER_FLAG.muted}
        + coalesce((SELECT ${VIEWER_FLAG.voted} + CAST(sum(CAST(1 AS BIGINT) << (${VOTE_CHOICE_SHIFT} + v.choice)) AS BIGINT) FROM polls p JOIN poll_votes v ON v.poll_id = p.id
            WHERE p.status_id = s.id AND v.account_id = ${viewer} AND v.choice < ${MAX_FLAGGED_CHOICES}), 0)`;

/**
 * The same flags with each table read once for all of the statuses keyed in `keys` (PostgreSQL's
 * form): the marks as a row per status and flag bit (a poll's row carries its choices too),
 * summed per status and joined, and the conversation's mute joined.
 */
function flagsOfAll(dialect: Dialect, keys: string, viewer: string): { flags: string; joins: string } {
  const among = (column: string) => dialect.amongKeys(column, keys);
  const marks = `SELECT status_id AS id, ${VIEWER_FLAG.favourited} AS bit FROM favourites WHERE account_id = ${viewer} AND ${among('status_id')}
    UNION ALL SELECT r.reblog_of_id, ${VIEWER_FLAG.reblogged} FROM statuses r
      WHERE r.account_id = ${viewer} AND ${among('r.reblog_of_id')} AND r.reblog_of_id IS NOT NULL AND r.deleted_at IS NULL
    UNION ALL SELECT status_id, ${VIEWER_FLAG.bookmarked} FROM bookmarks WHERE account_id = ${viewer} AND ${among('status_id')}
    UNION ALL SELECT status_id, ${VIEWER_FLAG.pinned} FROM status_pins WHERE account_id = ${viewer} AND ${among('status_id')}
    UNION ALL SELECT p.status_id, ${VIEWER_FLAG.voted} + CAST(sum(CAST(1 AS BIGINT) << (${VOTE_CHOICE_SHIFT} + v.choice)) AS BIGINT)
      FROM polls p JOIN poll_votes v ON v.poll_id = p.id
      WHERE ${among('p.status_id')} AND v.account_id = ${viewer} AND v.choice < ${MAX_FLAGGED_CHOICES} GROUP BY p.status_id`;
  return {
    flags: `coalesce(f.flags, 0) + CASE WHEN cm.account_id IS NULL THEN 0 ELSE ${VIEWER_FLAG.muted} END`,
    joins: `
        LEFT JOIN (SELECT marks.id, CAST(sum(marks.bit) AS BIGINT) AS flags FROM (${marks}) AS marks GROUP BY marks.id) AS f
          ON f.id = s.id
        LEFT JOIN conversation_mutes cm ON cm.account_id = ${viewer} AND cm.conversation_id = s.conversation_id`,
  };
}

/** Render rows, viewer flags and whether viewer (parameter 2) may see them, of the statuses in parameter 1 (id → known version). */
const RENDER_ROWS_SQL: ChangedRowsSql = (dialect, param) => {
  const [keys, viewer] = [param(1), param(2)];
  const { flags, joins } = dialect.looksUpAllRowsAtOnce
    ? flagsOfAll(dialect, keys, viewer)
    : { flags: flagsPerStatus(viewer), joins: '' };
  return `
      SELECT ${STATUS_COLUMNS}, s.version AS version, CAST(j.value AS INTEGER) AS known,
        (SELECT ${dialect.jsonArrayAgg('CAST(m.account_id AS TEXT)')} FROM mentions m WHERE m.status_id = s.id) AS mention_ids,
        -- Looked up by id whatever the statistics say (a stale count of one app made SQLite scan them all per status).
        (SELECT name FROM oauth_apps WHERE id = s.application_id) AS app_name, (SELECT website FROM oauth_apps WHERE id = s.application_id) AS app_website,
        EXISTS (SELECT 1 FROM media_attachments WHERE status_id = s.id) AS has_media,
        EXISTS (SELECT 1 FROM status_tags WHERE status_id = s.id) AS has_tags,
        (SELECT coalesce(expires_at, '') FROM polls WHERE status_id = s.id) AS poll_ends,
        ${flags} AS flags,
        ${visibleBy(viewer)} AS visible
      FROM ${dialect.entriesTableOf(keys, 'j')} JOIN statuses s ON s.id = CAST(j.key AS BIGINT)${joins}`;
};
const RENDER_ROWS = new ChangedRowsQuery<ChangedRenderRow['row'], { flags: number; visible: number }>(
  RENDER_ROWS_SQL,
  RENDER_FIELDS,
  ['flags', 'visible'],
);

/** A page's statuses (parameters 1, 2) and accounts (parameter 3) in one statement. */
const RENDER_ROWS_AND_ACCOUNTS = new ChangedRowsPair(RENDER_ROWS, 2, CHANGED_ACCOUNT_ROWS);

export class StatusRenderRowsRepo {
  constructor(private readonly ctx: SocialContext) {}

  /**
   * Statuses by id with the viewer's flags, and their render rows where `known` (id → render
   * version) is not current: one query, in which statuses already rendered cost a few index lookups.
   */
  renderRows(known: Record<string, number>, viewerId: string | null): Promise<ChangedRenderRow[]> {
    if (Object.keys(known).length === 0) return Promise.resolve([]);
    return RENDER_ROWS.run(this.ctx.reader, [JSON.stringify(known), viewerId]);
  }

  /** `renderRows` and the accounts' (`AccountsRepo.changedRows`) in one statement: one round trip. */
  renderRowsAndAccounts(
    known: Record<string, number>,
    viewerId: string | null,
    knownAccounts: Record<string, number>,
  ): Promise<[ChangedRenderRow[], Array<ChangedRow<AccountRow>>]> {
    return RENDER_ROWS_AND_ACCOUNTS.run(
      this.ctx.reader,
      [JSON.stringify(known), viewerId],
      [JSON.stringify(knownAccounts)],
    );
  }
}
