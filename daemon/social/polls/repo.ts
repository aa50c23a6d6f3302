/** Poll SQL: the poll rows with their tallies, the votes cast, and the polls that have ended. */
import type { Knex } from 'knex';
import type { SocialContext } from '../context.js';
import { dialectOf, rawRows } from '../../store/dialect.js';

export interface PollRow {
  id: string;
  status_id: string;
  account_id: string;
  /** JSON arrays: option titles, and the votes each has. */
  options: string;
  tallies: string;
  multiple: number;
  hide_totals: number;
  votes_count: number;
  voters_count: number | null;
  expires_at: string | null;
  ended_notified: number;
}

export interface NewPoll {
  id: string;
  statusId: string;
  accountId: string;
  options: string[];
  tallies?: number[];
  multiple: boolean;
  hideTotals: boolean;
  votesCount?: number;
  votersCount?: number | null;
  expiresAt: string | null;
}

const COLUMNS = `CAST(p.id AS TEXT) AS id, CAST(p.status_id AS TEXT) AS status_id, CAST(p.account_id AS TEXT) AS account_id,
  p.options, p.tallies, p.multiple, p.hide_totals, p.votes_count, p.voters_count, p.expires_at, p.ended_notified`;

export class PollsRepo {
  constructor(private readonly ctx: SocialContext) {}

  byId(id: string): Promise<PollRow | undefined> {
    return this.ctx.reader.get<PollRow>(`SELECT ${COLUMNS} FROM polls p WHERE p.id = ?`, [id]);
  }

  byStatus(statusId: string, db: Knex | null = null): Promise<PollRow | undefined> {
    const sql = `SELECT ${COLUMNS} FROM polls p WHERE p.status_id = ?`;
    return db
      ? rawRows<PollRow>(db, sql, [statusId]).then((rows) => rows[0])
      : this.ctx.reader.get<PollRow>(sql, [statusId]);
  }

  /** The polls of these statuses, with the choices `viewerId` voted for (JSON array, or null). */
  ofStatuses(
    statusIds: readonly string[],
    viewerId: string | null,
  ): Promise<Array<PollRow & { own_votes: string | null }>> {
    if (statusIds.length === 0) return Promise.resolve([]);
    return this.ctx.reader.all(
      `SELECT ${COLUMNS},
        (SELECT ${dialectOf(this.ctx.db).jsonArrayAgg('v.choice', 'v.choice')} FROM (SELECT choice FROM poll_votes WHERE poll_id = p.id AND account_id = ?2 ORDER BY choice) v) AS own_votes
      FROM polls p WHERE p.status_id IN ${dialectOf(this.ctx.db).idSet('?1')}`,
      [JSON.stringify(statusIds), viewerId],
    );
  }

  async ownChoices(pollId: string, accountId: string, db: Knex | null = null): Promise<number[]> {
    const sql = `SELECT choice FROM poll_votes WHERE poll_id = ? AND account_id = ? ORDER BY choice`;
    type Choice = { choice: number };
    const rows = db
      ? await rawRows<Choice>(db, sql, [pollId, accountId])
      : await this.ctx.reader.all<Choice>(sql, [pollId, accountId]);
    return rows.map((row) => row.choice);
  }

  /** An account's votes in a poll, with their ids (a vote federates under its id). */
  votesOf(pollId: string, accountId: string): Promise<Array<{ id: string; choice: number }>> {
    return this.ctx.reader.all(
      `SELECT CAST(id AS TEXT) AS id, choice FROM poll_votes WHERE poll_id = ? AND account_id = ? ORDER BY choice`,
      [pollId, accountId],
    );
  }

  async insert(trx: Knex, poll: NewPoll, now: string): Promise<void> {
    await trx.raw(
      `INSERT INTO polls (id, status_id, account_id, options, tallies, multiple, hide_totals, votes_count, voters_count, expires_at, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        poll.id,
        poll.statusId,
        poll.accountId,
        JSON.stringify(poll.options),
        JSON.stringify(poll.tallies ?? poll.options.map(() => 0)),
        poll.multiple ? 1 : 0,
        poll.hideTotals ? 1 : 0,
        poll.votesCount ?? 0,
        poll.votersCount === undefined ? 0 : poll.votersCount,
        poll.expiresAt,
        now,
        now,
      ],
    );
  }

  async remove(trx: Knex, pollId: string): Promise<void> {
    await trx.raw(`DELETE FROM polls WHERE id = ?`, [pollId]);
  }

  async clearVotes(trx: Knex, pollId: string): Promise<void> {
    await trx.raw(`DELETE FROM poll_votes WHERE poll_id = ?`, [pollId]);
  }

  /** An edited local poll: new terms, and with `resetVotes` (options changed) no votes. */
  async edit(
    trx: Knex,
    pollId: string,
    poll: { options: string[]; multiple: boolean; hideTotals: boolean; expiresAt: string },
    resetVotes: boolean,
    now: string,
  ): Promise<void> {
    if (resetVotes) {
      await this.clearVotes(trx, pollId);
      await trx.raw(`UPDATE polls SET tallies = ?, votes_count = 0, voters_count = 0 WHERE id = ?`, [
        JSON.stringify(poll.options.map(() => 0)),
        pollId,
      ]);
    }
    await trx.raw(
      `UPDATE polls SET options = ?, multiple = ?, hide_totals = ?, expires_at = ?, ended_notified = FALSE, updated_at = ? WHERE id = ?`,
      [JSON.stringify(poll.options), poll.multiple ? 1 : 0, poll.hideTotals ? 1 : 0, poll.expiresAt, now, pollId],
    );
  }

  /** A peer's poll as its server now counts it (options, tallies, end). */
  async replaceRemote(
    trx: Knex,
    statusId: string,
    poll: Omit<NewPoll, 'id' | 'statusId' | 'accountId'>,
    now: string,
  ): Promise<void> {
    await trx.raw(
      `UPDATE polls SET options = ?, tallies = ?, multiple = ?, votes_count = ?, voters_count = ?, expires_at = ?, updated_at = ? WHERE status_id = ?`,
      [
        JSON.stringify(poll.options),
        JSON.stringify(poll.tallies ?? poll.options.map(() => 0)),
        poll.multiple ? 1 : 0,
        poll.votesCount ?? 0,
        poll.votersCount ?? null,
        poll.expiresAt,
        now,
        statusId,
      ],
    );
  }

  /**
   * Records `accountId`'s choices and adds them to the tallies, in one transaction; the voter is
   * counted once however many choices (and separate peer Notes) their vote takes. Returns the
   * choices that were new.
   */
  async addVotes(
    trx: Knex,
    pollId: string,
    accountId: string,
    votes: ReadonlyArray<{ choice: number; uri: string | null }>,
    now: string,
  ): Promise<number[]> {
    const [poll] = await rawRows<{ tallies: string; votes_count: number; voters_count: number | null }>(
      trx,
      `SELECT tallies, votes_count, voters_count FROM polls WHERE id = ?`,
      [pollId],
    );
    if (!poll) return [];
    const votedBefore = (await this.ownChoices(pollId, accountId, trx)).length > 0;
    const added: number[] = [];
    for (const vote of votes) {
      const rows = await rawRows(
        trx,
        `INSERT INTO poll_votes (poll_id, account_id, choice, uri, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`,
        [pollId, accountId, vote.choice, vote.uri, now],
      );
      if (rows.length) added.push(vote.choice);
    }
    if (added.length === 0) return [];
    const tallies = JSON.parse(poll.tallies) as number[];
    for (const choice of added) tallies[choice] = (tallies[choice] ?? 0) + 1;
    const voters = poll.voters_count === null ? null : poll.voters_count + (votedBefore ? 0 : 1);
    await trx.raw(`UPDATE polls SET tallies = ?, votes_count = ?, voters_count = ?, updated_at = ? WHERE id = ?`, [
      JSON.stringify(tallies),
      poll.votes_count + added.length,
      voters,
      now,
      pollId,
    ]);
    return added;
  }

  /** Polls that have ended and whose voters were not yet told. */
  ended(now: string): Promise<PollRow[]> {
    return this.ctx.reader.all<PollRow>(
      `SELECT ${COLUMNS} FROM polls p WHERE NOT p.ended_notified AND p.expires_at IS NOT NULL AND p.expires_at <= ? ORDER BY p.expires_at LIMIT 100`,
      [now],
    );
  }

  /** Marks an ended poll as told; false when another run already did. */
  async markNotified(pollId: string): Promise<boolean> {
    const rows = await rawRows(
      this.ctx.db,
      `UPDATE polls SET ended_notified = TRUE WHERE id = ? AND NOT ended_notified RETURNING id`,
      [pollId],
    );
    return rows.length > 0;
  }

  /** The local accounts that voted in a poll. */
  async localVoters(pollId: string): Promise<string[]> {
    const rows = await this.ctx.reader.all<{ account_id: string }>(
      `SELECT DISTINCT CAST(v.account_id AS TEXT) AS account_id FROM poll_votes v
      JOIN users u ON u.account_id = v.account_id WHERE v.poll_id = ?`,
      [pollId],
    );
    return rows.map((row) => row.account_id);
  }

  /** The remote accounts that voted in a poll (they get its updated counts). */
  async remoteVoters(pollId: string): Promise<string[]> {
    const rows = await this.ctx.reader.all<{ account_id: string }>(
      `SELECT DISTINCT CAST(v.account_id AS TEXT) AS account_id FROM poll_votes v
      JOIN accounts a ON a.id = v.account_id WHERE v.poll_id = ? AND a.domain IS NOT NULL`,
      [pollId],
    );
    return rows.map((row) => row.account_id);
  }
}
