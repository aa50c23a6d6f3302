/**
 * The poll rules (Mastodon's): what a new poll may be (2–4 distinct options of up to 50
 * characters, 5 minutes to a month), who may vote and how (not the author, not after the end, one
 * choice once unless multiple, each option once), and, once a poll has ended, a `poll` notification to its
 * local author and each local voter.
 */
import type { Knex } from 'knex';
import { badRequest, forbidden, notFound, unprocessable } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import type { NotificationsService } from '../notifications/service.js';
import { visibleStatus } from '../statuses/service.js';
import { StatusesRepo } from '../statuses/repo.js';
import { StatusVisibility } from '../statuses/visibility.js';
import { nowIso } from '../time.js';
import type { PollInput } from './params.js';
import { PollsRepo, type NewPoll, type PollRow } from './repo.js';

export const POLL_LIMITS = {
  maxOptions: 4,
  maxCharactersPerOption: 50,
  minExpiration: 300,
  maxExpiration: 2_629_746,
} as const;

export class PollsService {
  readonly repo: PollsRepo;
  private readonly statuses: StatusesRepo;
  private readonly visibility: StatusVisibility;

  // Not over StatusesService: posting takes polls in (its create and edit hooks).
  constructor(
    private readonly ctx: SocialContext,
    private readonly notifications: NotificationsService,
  ) {
    this.repo = new PollsRepo(ctx);
    this.statuses = new StatusesRepo(ctx);
    this.visibility = new StatusVisibility(ctx);
  }

  byId(...args: Parameters<PollsRepo['byId']>): ReturnType<PollsRepo['byId']> {
    return this.repo.byId(...args);
  }
  byStatus(...args: Parameters<PollsRepo['byStatus']>): ReturnType<PollsRepo['byStatus']> {
    return this.repo.byStatus(...args);
  }
  remoteVoters(...args: Parameters<PollsRepo['remoteVoters']>): ReturnType<PollsRepo['remoteVoters']> {
    return this.repo.remoteVoters(...args);
  }
  insert(...args: Parameters<PollsRepo['insert']>): ReturnType<PollsRepo['insert']> {
    return this.repo.insert(...args);
  }
  replaceRemote(...args: Parameters<PollsRepo['replaceRemote']>): ReturnType<PollsRepo['replaceRemote']> {
    return this.repo.replaceRemote(...args);
  }
  votesOf(...args: Parameters<PollsRepo['votesOf']>): ReturnType<PollsRepo['votesOf']> {
    return this.repo.votesOf(...args);
  }

  // The reads routes answer with, as the repo makes them.
  ownChoices(...args: Parameters<PollsRepo['ownChoices']>): ReturnType<PollsRepo['ownChoices']> {
    return this.repo.ownChoices(...args);
  }

  /**
   * The options as stored (trimmed, blanks dropped) after Mastodon's checks of a poll asked for
   * with a new or edited status; 422 with Mastodon's messages.
   */
  check(input: PollInput, withMedia: boolean): string[] {
    // Mastodon answers a poll with media so (its media check runs first).
    if (withMedia) throw unprocessable('Cannot attach more than 4 files');
    const options = input.options.map((option) => option.trim()).filter((option) => option !== '');
    const fail = (message: string) => unprocessable(`Validation failed: ${message}`);
    if (options.length < 2) throw fail('Poll options must have more than one item');
    if (options.length > POLL_LIMITS.maxOptions)
      throw fail(`Poll options can't contain more than ${POLL_LIMITS.maxOptions} items`);
    if (options.some((option) => graphemes(option) > POLL_LIMITS.maxCharactersPerOption))
      throw fail(`Poll options cannot be longer than ${POLL_LIMITS.maxCharactersPerOption} characters each`);
    if (new Set(options).size !== options.length) throw fail('Poll options contain duplicate items');
    if (input.expiresIn < POLL_LIMITS.minExpiration) throw fail('Poll expires at is too soon');
    if (input.expiresIn > POLL_LIMITS.maxExpiration) throw fail('Poll expires at is too far into the future');
    return options;
  }

  /** Stores a poll for a status being written in `trx`; `options` are those check() returned. */
  async attach(trx: Knex, statusId: string, authorId: string, input: PollInput, options: string[]): Promise<void> {
    const now = this.ctx.now();
    await this.repo.insert(
      trx,
      {
        id: this.ctx.ids.next(),
        statusId,
        accountId: authorId,
        options,
        multiple: input.multiple,
        hideTotals: input.hideTotals,
        expiresAt: new Date(now + input.expiresIn * 1000).toISOString(),
      },
      nowIso(now),
    );
  }

  /**
   * An edit's poll (Mastodon's): new options or a change between single and multiple choice
   * start the count again; the end restarts from now. A status without a poll gets one.
   */
  async edit(trx: Knex, statusId: string, authorId: string, input: PollInput, options: string[]): Promise<void> {
    const existing = await this.repo.byStatus(statusId, trx);
    if (!existing) return this.attach(trx, statusId, authorId, input, options);
    const now = this.ctx.now();
    // Compared parsed: jsonb gives the stored array back in its own spacing.
    const changed =
      JSON.stringify(options) !== JSON.stringify(JSON.parse(existing.options)) ||
      input.multiple !== Boolean(existing.multiple);
    await this.repo.edit(
      trx,
      existing.id,
      {
        options,
        multiple: input.multiple,
        hideTotals: input.hideTotals,
        expiresAt: new Date(now + input.expiresIn * 1000).toISOString(),
      },
      changed,
      nowIso(now),
    );
  }

  /** The poll, if the viewer may see its status. */
  async visible(pollId: string, viewerId: string | null): Promise<PollRow> {
    const poll = await this.repo.byId(pollId);
    if (!poll) throw notFound();
    await visibleStatus(this.statuses, poll.status_id, viewerId);
    return poll;
  }

  /**
   * Casts the viewer's vote. Choices are option indexes; the vote is checked as a whole before
   * anything is stored. Emits `poll.voted` (federation sends the vote, or the new counts).
   */
  async vote(pollId: string, voterId: string, choices: readonly string[]): Promise<PollRow> {
    const poll = await this.visible(pollId, voterId);
    if (choices.length === 0) throw badRequest('param is missing or the value is empty: choices');
    if (await this.statuses.blocks(voterId, poll.account_id)) throw forbidden('This action is not allowed');
    const options = JSON.parse(poll.options) as string[];
    const picked = [...new Set(choices.map((choice) => (/^\d{1,3}$/.test(choice) ? Number(choice) : -1)))];
    const fail = (message: string) => unprocessable(`Validation failed: ${message}`);
    if (poll.account_id === voterId) throw fail('You cannot vote in your own polls');
    if (isEnded(poll, this.ctx.now())) throw fail('The poll has already ended');
    if (picked.some((choice) => choice < 0 || choice >= options.length))
      throw fail('The chosen vote option does not exist');
    const added = await this.ctx.db.transaction(async (trx) => {
      const before = await this.repo.ownChoices(pollId, voterId, trx);
      // Single choice: one vote, ever. Multiple choice: more options later, each once.
      const again = poll.multiple
        ? picked.some((choice) => before.includes(choice))
        : before.length > 0 || picked.length > 1;
      if (again) throw fail('You have already voted on this poll');
      return this.repo.addVotes(
        trx,
        pollId,
        voterId,
        picked.map((choice) => ({ choice, uri: null })),
        nowIso(this.ctx.now()),
      );
    });
    this.ctx.events.emit('poll.voted', { pollId, statusId: poll.status_id, accountId: voterId, choices: added });
    return (await this.repo.byId(pollId))!;
  }

  /**
   * A peer's vote on one of our polls (one Note per choice). Dropped, as Mastodon drops them, when
   * the poll has ended, the choice does not exist, or a single-choice poll already has their vote;
   * and when the voter may not see the poll's status.
   */
  async remoteVote(poll: PollRow, voterId: string, optionTitle: string, uri: string): Promise<boolean> {
    const choice = (JSON.parse(poll.options) as string[]).indexOf(optionTitle);
    if (choice < 0 || poll.account_id === voterId || isEnded(poll, this.ctx.now())) return false;
    // Only a voter who may see the poll's status votes (statuses/visibility.ts), as a local one.
    if (!(await this.visibility.among([poll.status_id], voterId)).has(poll.status_id)) return false;
    const added = await this.ctx.db.transaction(async (trx) => {
      const before = await this.repo.ownChoices(poll.id, voterId, trx);
      if (before.includes(choice) || (!poll.multiple && before.length > 0)) return [];
      return this.repo.addVotes(trx, poll.id, voterId, [{ choice, uri }], nowIso(this.ctx.now()));
    });
    if (added.length)
      this.ctx.events.emit('poll.voted', {
        pollId: poll.id,
        statusId: poll.status_id,
        accountId: voterId,
        choices: added,
      });
    return added.length > 0;
  }

  /**
   * A peer's poll as its status's edit or Update now has it, in that transaction: gone, new, or
   * refreshed; new options or a change between single and multiple choice drop the votes cast here
   * (they were for other choices).
   */
  async replaceFromPeer(
    trx: Knex,
    statusId: string,
    authorId: string,
    before: PollRow | undefined,
    after: PeerPoll | null,
    now: string,
  ): Promise<void> {
    if (!after) {
      if (before) await this.repo.remove(trx, before.id);
      return;
    }
    if (!before)
      return this.repo.insert(
        trx,
        { ...after, id: this.ctx.ids.next(), statusId, accountId: authorId, hideTotals: false },
        now,
      );
    if (peerPollChanged(before, after)) await this.repo.clearVotes(trx, before.id);
    await this.repo.replaceRemote(trx, statusId, { ...after, hideTotals: false }, now);
  }

  /** The minute job: tells the author (if local) and the local voters of each poll that has ended. */
  async notifyEnded(): Promise<number> {
    let told = 0;
    for (const poll of await this.repo.ended(nowIso(this.ctx.now()))) {
      if (!(await this.repo.markNotified(poll.id))) continue;
      const recipients = new Set([poll.account_id, ...(await this.repo.localVoters(poll.id))]);
      for (const recipientId of recipients) {
        await this.notifications.notify({
          recipientId,
          fromId: poll.account_id,
          type: 'poll',
          statusId: poll.status_id,
        });
      }
      this.ctx.events.emit('poll.ended', { pollId: poll.id, statusId: poll.status_id, accountId: poll.account_id });
      told += 1;
    }
    return told;
  }
}

/** Length as people count it (Mastodon counts grapheme clusters). */
function graphemes(text: string): number {
  return [...new Intl.Segmenter().segment(text)].length;
}

export function isEnded(poll: Pick<PollRow, 'expires_at'>, now: number): boolean {
  return poll.expires_at !== null && Date.parse(poll.expires_at) <= now;
}

/** A peer's poll as its Question publishes it. */
export type PeerPoll = Omit<NewPoll, 'id' | 'statusId' | 'accountId' | 'hideTotals'>;

/**
 * A change of options or of single versus multiple choice (votes cast for the old ones no longer
 * hold). The stored options are compared parsed: PostgreSQL's jsonb gives them back spaced its way.
 */
export function peerPollChanged(before: PollRow, after: PeerPoll): boolean {
  const options = JSON.parse(before.options) as string[];
  return JSON.stringify(options) !== JSON.stringify(after.options) || Boolean(before.multiple) !== after.multiple;
}
