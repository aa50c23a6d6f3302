/**
 * The one rule for who may see a status (Mastodon's StatusPolicy#show?). Every path that shows a
 * status or acts on one asks it: lookups and actions by id (StatusesService.visible), every
 * status rendered to JSON (the renderer: routes, search, notifications, conversations, streams),
 * the timelines, threads and profiles in SQL, and the ActivityPub note endpoint.
 */
import type { SocialContext } from '../context.js';
import { engineSql } from '../../store/engine-sql.js';

/**
 * Whether `viewer` (an SQL expression, NULL for no one signed in) may see status `status` (a
 * table alias) by its visibility: its author always; public and unlisted ones anyone; private
 * ones followers of the author and the accounts it mentions; direct ones only the accounts it
 * mentions; never someone its author blocks, nor anyone of a server its author blocks (a local
 * viewer has no server: that part costs it one lookup per query). Deletion, mutes and the
 * viewer's own blocks are the callers' business.
 */
export function visibleBy(viewer: string, status = 's'): string {
  // coalesce: with no viewer the comparison is NULL, which must read as false (NOT of it stays NULL).
  return `(coalesce(${status}.account_id = ${viewer}, FALSE) OR ((${status}.visibility IN ('public', 'unlisted')
    OR (${status}.visibility = 'private' AND EXISTS (SELECT 1 FROM follows vf WHERE vf.account_id = ${viewer} AND vf.target_account_id = ${status}.account_id))
    OR EXISTS (SELECT 1 FROM mentions vm WHERE vm.status_id = ${status}.id AND vm.account_id = ${viewer}))
    AND NOT EXISTS (SELECT 1 FROM blocks vb WHERE vb.account_id = ${status}.account_id AND vb.target_account_id = ${viewer})
    AND ((SELECT vd.domain FROM accounts vd WHERE vd.id = ${viewer}) IS NULL
      OR NOT EXISTS (SELECT 1 FROM account_domain_blocks vdb WHERE vdb.account_id = ${status}.account_id
        AND vdb.domain = lower((SELECT vd.domain FROM accounts vd WHERE vd.id = ${viewer}))))))`;
}

const AMONG_SQL = engineSql(
  (dialect) => `SELECT CAST(s.id AS TEXT) AS id FROM statuses s
  WHERE s.id IN (SELECT CAST(i.value AS BIGINT) FROM ${dialect.idsTableOf('?1', 'i')}) AND ${visibleBy('CAST(?2 AS BIGINT)')}`,
);

const VIEWERS_SQL = engineSql(
  (dialect) => `SELECT ${visibleBy('NULL')} AS anyone,
  (SELECT ${dialect.jsonArrayAgg('v.value')} FROM ${dialect.idsTableOf('?2', 'v')} WHERE ${visibleBy('CAST(v.value AS BIGINT)')}) AS accounts
  FROM statuses s WHERE s.id = ?1`,
);

/** The rule asked of statuses already known by id (search results, a federation fetch, a stream's deletion). */
export class StatusVisibility {
  constructor(private readonly ctx: SocialContext) {}

  /** Those of `ids` the viewer may see by the rule (deleted ones included: deletion is the caller's). */
  async among(ids: readonly string[], viewerId: string | null): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.ctx.reader.all<{ id: string }>(AMONG_SQL(this.ctx.reader.engine), [
      JSON.stringify(ids),
      viewerId,
    ]);
    return new Set(rows.map((row) => row.id));
  }

  /** `ids` in their order without those the viewer may not see. */
  async filter(ids: readonly string[], viewerId: string | null): Promise<string[]> {
    const seen = await this.among(ids, viewerId);
    return ids.filter((id) => seen.has(id));
  }

  /** Whether no one signed in may see status `statusId`, and which of `accountIds` may (deleted or not). */
  async viewersOf(
    statusId: string,
    accountIds: readonly string[],
  ): Promise<{ anyone: boolean; accounts: Set<string> }> {
    const row = await this.ctx.reader.get<{ anyone: number; accounts: string }>(VIEWERS_SQL(this.ctx.reader.engine), [
      statusId,
      JSON.stringify(accountIds),
    ]);
    return { anyone: Boolean(row?.anyone), accounts: new Set(row ? (JSON.parse(row.accounts) as string[]) : []) };
  }
}
