/**
 * Local actions become activities: this listens on the social event bus and queues, for each
 * event caused by a local account, the matching activity for the right inboxes (followers'
 * shared inboxes, mentioned and targeted remote accounts). Events caused by remote actors
 * (inbound activities run the same services) are not sent back out.
 */
import type { SocialEvents } from '../../events.js';
import { nullIfNotFound } from '../../../lib/errors.js';
import type { StatusRow } from '../../statuses/repo.js';
import type { FederationContext } from '../context.js';
import { ActorsRepo, type ActorRow } from '../actors/repo.js';
import type { LocalActors } from '../actors/local.js';
import { NoteRenderer, followersOf } from '../objects/note.js';
import * as activities from '../objects/activities.js';
import { isoSeconds, type Json } from '../objects/ld.js';
import type { DeliveryQueue } from './queue.js';
import { voteActivity } from '../objects/question.js';

/** Mastodon waits 3 minutes before sending a poll's new counts; we send the first at once, then at most this often. */
const POLL_UPDATE_INTERVAL_MS = 60_000;

type Handler<K extends keyof SocialEvents> = (...args: SocialEvents[K]) => Promise<void>;

export class Outbound {
  private readonly actors: ActorsRepo;
  private readonly notes: NoteRenderer;
  /**
   * Polls whose new counts went out within the last POLL_UPDATE_INTERVAL_MS, and whether more
   * votes came since (one more Update is due at its end). Votes come in bursts; peers get the
   * first count at once and then at most one Update per interval.
   */
  private readonly pollUpdates = new Map<string, { again: boolean; timer: NodeJS.Timeout }>();
  /** Activities still being built and queued (a write request is answered once its own are queued). */
  private readonly preparing = new Set<Promise<void>>();

  constructor(
    private readonly fed: FederationContext,
    private readonly queue: DeliveryQueue,
    private readonly local: LocalActors,
  ) {
    this.actors = new ActorsRepo(fed.social);
    this.notes = new NoteRenderer(fed);
  }

  start(): void {
    // A peer's status is the peer's to deliver: not even read.
    this.on('status.created', async ({ statusId, local }) => {
      if (local) await this.statusActivity(statusId, 'create');
    });
    this.on('status.updated', ({ statusId }) => this.statusActivity(statusId, 'update'));
    this.on('status.deleted', ({ statusId }) => this.statusActivity(statusId, 'delete'));
    this.on('favourite.created', ({ accountId, statusId }) => this.like(accountId, statusId, false));
    this.on('favourite.removed', ({ accountId, statusId }) => this.like(accountId, statusId, true));
    this.on('reblog.created', ({ accountId, statusId, reblogId }) =>
      this.announce(accountId, statusId, reblogId, false),
    );
    this.on('reblog.removed', ({ accountId, statusId, reblogId }) =>
      this.announce(accountId, statusId, reblogId, true),
    );
    this.on('follow.created', ({ accountId, targetAccountId }) =>
      this.toTarget(accountId, targetAccountId, (a, t) => activities.follow(a.uri, t.uri)),
    );
    this.on('follow.removed', ({ accountId, targetAccountId }) =>
      this.toTarget(accountId, targetAccountId, (a, t) => activities.undo(a.uri, activities.follow(a.uri, t.uri))),
    );
    this.on('block.created', ({ accountId, targetAccountId }) =>
      this.toTarget(accountId, targetAccountId, (a, t) => activities.block(a.uri, t.uri)),
    );
    this.on('block.removed', ({ accountId, targetAccountId }) =>
      this.toTarget(accountId, targetAccountId, (a, t) => activities.undo(a.uri, activities.block(a.uri, t.uri))),
    );
    this.on('follow_request.authorized', ({ accountId, targetAccountId }) =>
      this.answerFollow('Accept', targetAccountId, accountId),
    );
    this.on('follow_request.rejected', ({ accountId, targetAccountId }) =>
      this.answerFollow('Reject', targetAccountId, accountId),
    );
    this.on('account.updated', ({ accountId }) => this.profileUpdate(accountId));
    this.on('report.forwarded', ({ reportId }) => this.forwardReport(reportId));
    this.on('poll.voted', (vote) => this.pollVoted(vote));
    this.on('poll.ended', ({ statusId }) => this.pollUpdate(statusId));
  }

  stop(): void {
    this.fed.social.events.removeListeners(this);
    for (const { timer } of this.pollUpdates.values()) clearTimeout(timer);
    this.pollUpdates.clear();
  }

  /** Resolves once every event seen so far has been turned into queued deliveries. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.preparing]);
  }

  /** As settled(), and again for events that arrive meanwhile, until none is left (shutdown). */
  async drained(): Promise<void> {
    while (this.preparing.size) await this.settled();
  }

  private on<K extends keyof SocialEvents>(name: K, handler: Handler<K>): void {
    const listener = (...args: SocialEvents[K]) => this.track(name, handler(...args));
    this.fed.social.events.on(this, name, listener);
  }

  /** Counts `work` among the activities being prepared (settled() waits for it); logs its failure. */
  private track(event: string, work: Promise<void>): void {
    const job = work.catch((error) => this.fed.log.warn('outbound activity failed', { event, error }));
    this.preparing.add(job);
    void job.finally(() => this.preparing.delete(job));
  }

  /** Sends `activity` from local `sender` to each inbox. */
  async send(sender: ActorRow, inboxes: Array<string | null | undefined>, activity: Json): Promise<void> {
    const targets = inboxes.filter((inbox): inbox is string => Boolean(inbox));
    if (targets.length === 0) return;
    await this.queue.enqueue(sender.id, targets, activity);
  }

  private async localActor(id: string): Promise<ActorRow | null> {
    const actor = await this.actors.byId(id);
    return actor && actor.domain === null ? actor : null;
  }

  /**
   * The inbox Mastodon prefers: the server's shared one when it has one, so a post to followers
   * and a mention on the same server travel once (the queue drops the repeated inbox).
   */
  private inboxOf(actor: ActorRow | undefined | null): string | null {
    return actor && actor.domain !== null ? (actor.shared_inbox_url ?? actor.inbox_url) : null;
  }

  private async statusActivity(statusId: string, kind: 'create' | 'update' | 'delete'): Promise<void> {
    const row = await this.fed.services.statuses.byIdWithParts(statusId);
    if (!row || row.reblog_of_id || !row.local) return; // reblogs travel as Announce / Undo
    // Whom it reaches first: a status nobody elsewhere reads is not rendered as a Note at all.
    const inboxes = await this.actors.audienceInboxes(row.account_id, row.id, row.visibility !== 'direct');
    if (inboxes.length === 0) return;
    const rendered = await this.notes.render(row, row);
    if (!rendered || rendered.author.domain !== null) return;
    const { author, note } = rendered;
    const activity =
      kind === 'create'
        ? activities.create(note, author.uri)
        : kind === 'update'
          ? activities.updateNote(note, author.uri, this.fed.social.now())
          : activities.deleteNote(author.uri, row.uri);
    await this.send(author, inboxes, activity);
  }

  private async like(accountId: string, statusId: string, undo: boolean): Promise<void> {
    const actor = await this.localActor(accountId);
    const status = await this.fed.services.statuses.byId(statusId);
    if (!actor || !status) return;
    const author = await this.actors.byId(status.account_id);
    const activity = activities.like(actor.uri, status.uri);
    await this.send(actor, [this.inboxOf(author)], undo ? activities.undo(actor.uri, activity) : activity);
  }

  private async announce(accountId: string, statusId: string, reblogId: string, undo: boolean): Promise<void> {
    const actor = await this.localActor(accountId);
    const status = await this.fed.services.statuses.byId(statusId);
    const reblog: StatusRow | undefined = await this.fed.services.statuses.byId(reblogId);
    if (!actor || !status || !reblog) return;
    const author = await this.actors.byId(status.account_id);
    if (!author) return;
    const activity = activities.announce(
      actor.uri,
      reblog.uri,
      status.uri,
      isoSeconds(reblog.created_at),
      followersOf(actor),
      author.uri,
    );
    const inboxes = [...(await this.actors.followerInboxes(actor.id)), this.inboxOf(author)];
    await this.send(actor, inboxes, undo ? activities.undo(actor.uri, activity) : activity);
  }

  /** An activity from a local account to one remote account (follow, block and their undos). */
  private async toTarget(
    accountId: string,
    targetId: string,
    build: (actor: ActorRow, target: ActorRow) => Json,
  ): Promise<void> {
    const actor = await this.localActor(accountId);
    const target = await this.actors.byId(targetId);
    if (!actor || !target || target.domain === null) return;
    await this.send(actor, [target.inbox_url], build(actor, target));
  }

  /**
   * A report goes to the reported account's own inbox as a Flag from the instance actor (as
   * Mastodon forwards them), naming the account and the statuses it cites.
   */
  private async forwardReport(reportId: string): Promise<void> {
    const report = await this.fed.services.reports.get(reportId).catch(nullIfNotFound);
    const target = report ? await this.actors.byId(report.target_account_id) : undefined;
    if (!report || !target || target.domain === null || !target.inbox_url) return;
    const cited: Array<{ uri: string }> = [];
    for (const id of [...report.status_ids].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))) {
      const status = await this.fed.services.statuses.byId(id);
      if (status) cited.push(status);
    }
    const activity = activities.flag(
      this.fed.instanceActor.uri,
      `${this.fed.baseUrl}/reports/${reportId}`,
      report.comment,
      [target.uri, ...cited.map((status) => status.uri)],
    );
    await this.queue.enqueue(null, [target.inbox_url], activity);
  }

  /** A local account answers a remote account's follow request. */
  async answerFollow(
    kind: 'Accept' | 'Reject',
    targetId: string,
    requesterId: string,
    followUri?: string | null,
  ): Promise<void> {
    const target = await this.localActor(targetId);
    const requester = await this.actors.byId(requesterId);
    if (!target || !requester || requester.domain === null) return;
    const uri = followUri !== undefined ? followUri : await this.actors.followUri(requesterId, targetId);
    await this.send(target, [requester.inbox_url], activities.answerFollow(kind, target.uri, requester.uri, uri));
  }

  /** A local vote in a peer's poll goes to its author, one Create per choice; a vote in ours updates its counts. */
  private async pollVoted({ pollId, statusId, accountId, choices }: SocialEvents['poll.voted'][0]): Promise<void> {
    const status = await this.fed.services.statuses.byId(statusId);
    const poll = await this.fed.services.polls.byId(pollId);
    if (!status || !poll) return;
    if (status.local) {
      if (!poll.hide_totals) await this.throttledPollUpdate(statusId);
      return;
    }
    const voter = await this.localActor(accountId);
    const author = await this.actors.byId(status.account_id);
    if (!voter || !author) return;
    const options = JSON.parse(poll.options) as string[];
    for (const vote of await this.fed.services.polls.votesOf(pollId, accountId)) {
      if (!choices.includes(vote.choice)) continue;
      await this.send(
        voter,
        [this.inboxOf(author)],
        voteActivity(voter.uri, vote.id, author.uri, status.uri, options[vote.choice]),
      );
    }
  }

  /** Sends the poll's counts now, or once at the end of the interval when they went out within it. */
  private async throttledPollUpdate(statusId: string): Promise<void> {
    const open = this.pollUpdates.get(statusId);
    if (open) {
      open.again = true;
      return;
    }
    const interval = {
      again: false,
      timer: setTimeout(() => {
        this.pollUpdates.delete(statusId);
        if (interval.again) this.track('poll.voted', this.throttledPollUpdate(statusId));
      }, POLL_UPDATE_INTERVAL_MS),
    };
    interval.timer.unref();
    this.pollUpdates.set(statusId, interval);
    await this.pollUpdate(statusId);
  }

  /** The poll's Question with its counts, to the followers, the mentioned and the remote voters. */
  private async pollUpdate(statusId: string): Promise<void> {
    const row = await this.fed.services.statuses.byId(statusId);
    if (!row || !row.local || row.deleted_at) return;
    const rendered = await this.notes.render(row);
    const poll = await this.fed.services.polls.byStatus(statusId);
    if (!rendered || !poll) return;
    const { author, note, mentioned } = rendered;
    const voters = await Promise.all(
      (await this.fed.services.polls.remoteVoters(poll.id)).map((id) => this.actors.byId(id)),
    );
    const inboxes = [
      ...(row.visibility === 'direct' ? [] : await this.actors.followerInboxes(author.id)),
      ...mentioned.map((actor) => this.inboxOf(actor)),
      ...voters.map((actor) => this.inboxOf(actor)),
    ];
    await this.send(author, [...new Set(inboxes)], activities.updateNote(note, author.uri, this.fed.social.now()));
  }

  private async profileUpdate(accountId: string): Promise<void> {
    const actor = await this.localActor(accountId);
    if (!actor) return;
    const account = await this.fed.services.accounts.get(accountId);
    const doc = await this.local.document(account);
    await this.send(
      actor,
      await this.actors.followerInboxes(actor.id),
      activities.updateActor(doc, this.fed.social.now()),
    );
  }
}
