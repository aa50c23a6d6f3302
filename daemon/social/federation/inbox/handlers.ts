/**
 * What each inbound activity does, through the same services local actions use (so follow,
 * favourite, reblog, block and notification rules are the same for remote actors). The sender
 * is already verified: `actor` is the account whose key signed the request.
 */
import { DomainError } from '../../../lib/errors.js';
import { nowIso } from '../../time.js';
import type { FederationContext } from '../context.js';
import type { ActorRow } from '../actors/repo.js';
import type { RemoteActors } from '../actors/remote.js';
import { parseActor, ACTOR_TYPES } from '../actors/parse.js';
import type { RemoteStatuses } from '../objects/remote-statuses.js';
import { NOTE_TYPES } from '../objects/remote-statuses.js';
import { hasType, hostOf, idOf, InvalidDocumentError, isObject, str, type Json } from '../objects/ld.js';
import { parseVote } from '../objects/question.js';
import { isLocalUri } from '../context.js';
import type { Outbound } from '../delivery/outbound.js';
import { LocalMovesRepo } from '../actors/moves-repo.js';

type Handler = (activity: Json, actor: ActorRow) => Promise<void>;

/** A Flag names one account and the posts it cites; more than this is not a report anyone sends. */
const FLAG_MAX_OBJECTS = 100;

export class InboxHandlers {
  private readonly localMoves: LocalMovesRepo;
  private readonly handlers: Record<string, Handler> = {
    Follow: (a, actor) => this.follow(a, actor),
    Undo: (a, actor) => this.undo(a, actor),
    Like: (a, actor) => this.like(a, actor),
    Announce: (a, actor) => this.announce(a, actor),
    Create: (a, actor) => this.create(a, actor),
    Delete: (a, actor) => this.delete(a, actor),
    Update: (a, actor) => this.update(a, actor),
    Block: (a, actor) => this.block(a, actor),
    Flag: (a, actor) => this.flag(a, actor),
    Move: (a, actor) => this.move(a, actor),
    Accept: (a, actor) => this.answer(a, actor, true),
    Reject: (a, actor) => this.answer(a, actor, false),
  };

  constructor(
    private readonly fed: FederationContext,
    private readonly actors: RemoteActors,
    private readonly statuses: RemoteStatuses,
    private readonly outbound: Outbound,
  ) {
    this.localMoves = new LocalMovesRepo(fed.social);
  }

  private get services() {
    return this.fed.services;
  }

  /** Runs the activity; unknown types are ignored (as Mastodon does). */
  async handle(activity: Json, actor: ActorRow): Promise<boolean> {
    const type = str(activity.type);
    const handler = type ? this.handlers[type] : undefined;
    if (!handler) return false;
    await ignoreRefusals(() => handler(activity, actor));
    return true;
  }

  private async localAccount(value: unknown): Promise<ActorRow | undefined> {
    const uri = idOf(value);
    if (!uri) return undefined;
    const row = await this.actors.repo.byUri(uri);
    return row && row.domain === null && !row.suspended_at ? row : undefined;
  }

  private async follow(activity: Json, actor: ActorRow): Promise<void> {
    const target = await this.localAccount(activity.object);
    if (!target) return;
    const followUri = idOf(activity);
    const refused =
      (await this.services.relationships.exists('blocks', target.id, actor.id)) ||
      (await this.services.relationships.domainBlocked(target.id, actor.domain));
    if (refused) {
      await this.outbound.answerFollow('Reject', target.id, actor.id, followUri);
      return;
    }
    if (!(await this.services.relationships.exists('follows', actor.id, target.id))) {
      await this.services.relationships.follow(actor.id, target.id, {});
    }
    await this.actors.repo.setFollowUri(actor.id, target.id, followUri);
    // Accepted at once unless it became a request (locked account): the owner answers later.
    if (await this.services.relationships.exists('follows', actor.id, target.id)) {
      await this.outbound.answerFollow('Accept', target.id, actor.id, followUri);
    }
  }

  /**
   * A report from a peer (Mastodon sends them from its instance actor): kept as a report against the
   * local account it names, citing that account's statuses among its objects.
   */
  private async flag(activity: Json, actor: ActorRow): Promise<void> {
    const uris = (Array.isArray(activity.object) ? activity.object : [activity.object])
      .slice(0, FLAG_MAX_OBJECTS)
      .map((object) => idOf(object))
      .filter((uri): uri is string => Boolean(uri));
    let target: ActorRow | undefined;
    for (const uri of uris) target ??= await this.localAccount(uri);
    if (!target) return;
    const statusIds: string[] = [];
    for (const uri of uris) {
      const status = await this.statuses.byUri(uri);
      if (status && status.account_id === target.id) statusIds.push(status.id);
    }
    await this.services.reports.receive(actor.id, target.id, statusIds, str(activity.content) ?? '');
  }

  private async undo(activity: Json, actor: ActorRow): Promise<void> {
    const inner = activity.object;
    const innerId = idOf(inner);
    if (!isObject(inner)) {
      // Undo naming only an id: an Announce (a reblog we stored under that id).
      if (innerId) await this.unreblog(innerId, actor);
      return;
    }
    if (idOf(inner.actor) !== actor.uri) throw new InvalidDocumentError('Undo of an activity by another actor');
    if (hasType(inner, 'Follow')) {
      const target = await this.localAccount(inner.object);
      if (target) await this.services.relationships.unfollow(actor.id, target.id);
    } else if (hasType(inner, 'Like')) {
      const status = await this.statuses.byUri(idOf(inner.object) ?? '');
      if (status) await this.services.statuses.unfavourite(actor.id, status.id);
    } else if (hasType(inner, 'Announce')) {
      if (innerId) await this.unreblog(innerId, actor);
    } else if (hasType(inner, 'Block')) {
      const target = await this.localAccount(inner.object);
      if (target) await this.services.relationships.unblock(actor.id, target.id);
    }
  }

  private async unreblog(announceUri: string, actor: ActorRow): Promise<void> {
    const reblog = await this.statuses.byUri(announceUri);
    if (reblog?.reblog_of_id && reblog.account_id === actor.id && !reblog.deleted_at) {
      await this.services.statuses.removeReblog(actor.id, reblog.reblog_of_id);
    }
  }

  private async like(activity: Json, actor: ActorRow): Promise<void> {
    const status = await this.statuses.byUri(idOf(activity.object) ?? '');
    if (status && !status.deleted_at) await this.services.statuses.favourite(actor.id, status.id);
  }

  private async announce(activity: Json, actor: ActorRow): Promise<void> {
    const announceUri = idOf(activity);
    const objectUri = idOf(activity.object);
    if (!announceUri || !objectUri) throw new InvalidDocumentError('Announce without id or object');
    if (await this.statuses.byUri(announceUri)) return;
    const originalId = await this.statuses.resolve(objectUri);
    // The reblog is the peer's Announce: its id is the uri, and it is not ours.
    await this.services.statuses.reblog(actor.id, originalId, 'public', announceUri);
  }

  private async create(activity: Json, actor: ActorRow): Promise<void> {
    const object = activity.object;
    if (await this.vote(object, actor)) return;
    if (isObject(object) && hasType(object, ...NOTE_TYPES)) {
      await this.statuses.store(object, actor);
    } else if (typeof object === 'string') {
      await this.statuses.resolve(object);
    }
  }

  /**
   * A vote in one of our polls (a Note naming one of its options, answering it) is counted and
   * never stored as a status, as Mastodon does; one it cannot count is dropped.
   */
  private async vote(object: unknown, actor: ActorRow): Promise<boolean> {
    const vote = parseVote(object);
    if (!vote || !isLocalUri(this.fed, vote.questionUri)) return false;
    const status = await this.statuses.byUri(vote.questionUri);
    const poll = status && !status.deleted_at ? await this.services.polls.byStatus(status.id) : undefined;
    if (!poll || !(JSON.parse(poll.options) as string[]).includes(vote.name)) return false;
    if (hostOf(vote.uri) !== actor.domain)
      throw new InvalidDocumentError(`vote ${vote.uri} is not on its voter's host`);
    await this.services.polls.remoteVote(poll, actor.id, vote.name, vote.uri);
    return true;
  }

  private async delete(activity: Json, actor: ActorRow): Promise<void> {
    const uri = idOf(activity.object);
    if (!uri) return;
    if (uri === actor.uri) {
      await this.actors.repo.suspend(actor.id, nowIso(this.fed.social.now()));
      return;
    }
    const status = await this.statuses.byUri(uri);
    if (!status || status.account_id !== actor.id || status.deleted_at) return;
    if (status.reblog_of_id) await this.services.statuses.removeReblog(actor.id, status.reblog_of_id);
    else await this.services.statuses.delete(actor.id, status.id);
  }

  private async update(activity: Json, actor: ActorRow): Promise<void> {
    const object = activity.object;
    if (!isObject(object)) return;
    if (hasType(object, ...ACTOR_TYPES)) {
      const doc = parseActor(object, actor.uri);
      if (doc.uri !== actor.uri) throw new InvalidDocumentError('Update of another actor');
      // The new key (rotation) arrives here, signed with the old one.
      await this.actors.store(doc);
    } else if (hasType(object, ...NOTE_TYPES)) {
      await this.statuses.update(object, actor);
    }
  }

  private async block(activity: Json, actor: ActorRow): Promise<void> {
    const target = await this.localAccount(activity.object);
    if (target) await this.services.relationships.block(actor.id, target.id);
  }

  /** The actor moved to `target` (which must name the actor among its aliases): local followers follow the new account. */
  private async move(activity: Json, actor: ActorRow): Promise<void> {
    const origin = idOf(activity.object);
    const targetUri = idOf(activity.target);
    if (origin !== actor.uri || !targetUri) throw new InvalidDocumentError('Move of another actor or without target');
    const target = await this.actors.resolve(targetUri, { refresh: true });
    const aliases =
      target.domain === null
        ? await this.localMoves.aliases(target.id)
        : (JSON.parse(target.also_known_as ?? '[]') as string[]);
    if (!aliases.includes(actor.uri))
      throw new InvalidDocumentError(`Move target ${targetUri} does not name ${actor.uri} as an alias`);
    await this.actors.repo.setMoved(actor.id, target.id);
    for (const follower of await this.actors.repo.localFollowersOf(actor.id)) {
      await ignoreRefusals(async () => {
        await this.services.relationships.unfollow(follower.id, actor.id);
        await this.services.relationships.follow(follower.id, target.id, {});
      });
    }
  }

  /** Accept or Reject of one of our Follows. */
  private async answer(activity: Json, actor: ActorRow, accepted: boolean): Promise<void> {
    const follow = activity.object;
    const followerUri = isObject(follow) ? idOf(follow.actor) : (str(follow)?.replace(/#follows\/.*$/, '') ?? null);
    const follower = await this.localAccount(followerUri);
    if (!follower) return;
    const requested = await this.services.relationships.exists('follow_requests', follower.id, actor.id);
    if (accepted) {
      if (requested) await this.services.relationships.authorize(actor.id, follower.id);
    } else if (requested) {
      await this.services.relationships.reject(actor.id, follower.id);
    } else if (await this.services.relationships.exists('follows', follower.id, actor.id)) {
      await this.services.relationships.unfollow(follower.id, actor.id);
    }
  }
}

/** A service saying no (404 unknown status, 403 blocked, 422 private reblog) ends the activity quietly. */
async function ignoreRefusals(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof DomainError && error.kind !== 'busy') return;
    throw error;
  }
}
