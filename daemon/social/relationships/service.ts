/**
 * Relationship rules: following (a request when the target is locked, silenced, or has muted the
 * requester; no error when already following), authorizing and rejecting requests (and
 * auto-authorizing them on unlock, except silenced or muted requesters), blocks, mutes with
 * notifications and duration, domain blocks and private notes.
 */
import { notFound, forbidden, unprocessable } from '../../lib/errors.js';
import type { SocialContext } from '../context.js';
import { isoAfterSeconds, nowIso } from '../time.js';
import { AccountsRepo, type AccountRow } from '../accounts/repo.js';
import type { NotificationsService } from '../notifications/service.js';
import { FAMILIES, type RateLimitHeaders, type RateLimiter } from '../ratelimit/limiter.js';
import type { ListsRepo } from '../lists/repo.js';
import type { FeaturedRepo } from '../featured/repo.js';
import { RelationshipsRepo, type RelationshipRow } from './repo.js';

type Transaction = Parameters<Parameters<SocialContext['db']['transaction']>[0]>[0];

export interface FollowOptions {
  reblogs?: boolean;
  notify?: boolean;
  languages?: string[] | null;
}

export class RelationshipsService {
  readonly repo: RelationshipsRepo;
  private readonly accounts: AccountsRepo;

  /** `lists` and `featured`: what ends with a follow (list membership, endorsement) is removed through them. */
  constructor(
    private readonly ctx: SocialContext,
    private readonly notifications: NotificationsService,
    private readonly limiter: RateLimiter,
    private readonly lists: ListsRepo,
    private readonly featured: FeaturedRepo,
  ) {
    this.repo = new RelationshipsRepo(ctx);
    this.accounts = new AccountsRepo(ctx);
  }

  domainBlocked(
    ...args: Parameters<RelationshipsRepo['domainBlocked']>
  ): ReturnType<RelationshipsRepo['domainBlocked']> {
    return this.repo.domainBlocked(...args);
  }

  // The reads routes answer with, as the repo makes them.
  exists(...args: Parameters<RelationshipsRepo['exists']>): ReturnType<RelationshipsRepo['exists']> {
    return this.repo.exists(...args);
  }
  domainBlocks(...args: Parameters<RelationshipsRepo['domainBlocks']>): ReturnType<RelationshipsRepo['domainBlocks']> {
    return this.repo.domainBlocks(...args);
  }
  familiarFollowers(
    ...args: Parameters<RelationshipsRepo['familiarFollowers']>
  ): ReturnType<RelationshipsRepo['familiarFollowers']> {
    return this.repo.familiarFollowers(...args);
  }
  listEdges(...args: Parameters<RelationshipsRepo['listEdges']>): ReturnType<RelationshipsRepo['listEdges']> {
    return this.repo.listEdges(...args);
  }
  relationships(
    ...args: Parameters<RelationshipsRepo['relationships']>
  ): ReturnType<RelationshipsRepo['relationships']> {
    return this.repo.relationships(...args);
  }
  hiddenFrom(...args: Parameters<RelationshipsRepo['hiddenFrom']>): ReturnType<RelationshipsRepo['hiddenFrom']> {
    return this.repo.hiddenFrom(...args);
  }

  private async target(viewerId: string, targetId: string): Promise<AccountRow> {
    const target = await this.accounts.byId(targetId);
    if (!target || target.suspended_at) throw notFound();
    if (target.id === viewerId) throw forbidden('This action is not allowed');
    return target;
  }

  async relationship(viewerId: string, targetId: string): Promise<RelationshipRow> {
    const [row] = await this.repo.relationships(viewerId, [targetId]);
    if (!row) throw notFound();
    return row;
  }

  async follow(
    viewerId: string,
    targetId: string,
    options: FollowOptions,
  ): Promise<{ headers: RateLimitHeaders | null }> {
    const target = await this.target(viewerId, targetId);
    if (
      (await this.repo.exists('blocks', targetId, viewerId)) ||
      (await this.repo.exists('blocks', viewerId, targetId))
    ) {
      throw forbidden('This action is not allowed');
    }
    const settings = {
      show_reblogs: options.reblogs === false ? 0 : 1,
      notify: options.notify ? 1 : 0,
      languages: options.languages?.length ? JSON.stringify(options.languages) : null,
    };
    // Already following or requested: update the options, no error.
    for (const table of ['follows', 'follow_requests'] as const) {
      if (await this.repo.exists(table, viewerId, targetId)) {
        const changes: Record<string, unknown> = {};
        if (options.reblogs !== undefined) changes.show_reblogs = settings.show_reblogs;
        if (options.notify !== undefined) changes.notify = settings.notify;
        if (options.languages !== undefined) changes.languages = settings.languages;
        if (Object.keys(changes).length) await this.repo.updateFollowOptions(table, viewerId, targetId, changes);
        return { headers: null };
      }
    }
    const pending =
      Boolean(target.locked) ||
      target.silenced_at !== null ||
      (await this.repo.mutes(targetId, viewerId)) ||
      target.domain !== null;
    const { headers, inserted } = await this.ctx.db.transaction(async (trx) => {
      const added = await this.repo.insertEdge(trx, pending ? 'follow_requests' : 'follows', {
        account_id: viewerId,
        target_account_id: targetId,
        ...settings,
        created_at: nowIso(this.ctx.now()),
      });
      if (!added) return { headers: null, inserted: false };
      // Counted only for a new follow or request; over the limit, the insert rolls back with the 429.
      const counted = await this.limiter.record(trx, viewerId, FAMILIES.follows);
      if (!pending) await this.countFollow(trx, viewerId, targetId, 1);
      return { headers: counted, inserted: true };
    });
    // A concurrent request made it first: nothing more to do.
    if (!inserted) return { headers };
    this.ctx.events.emit('follow.created', { accountId: viewerId, targetAccountId: targetId, pending });
    await this.notifications.notify({
      recipientId: targetId,
      fromId: viewerId,
      type: pending ? 'follow_request' : 'follow',
    });
    return { headers };
  }

  private async countFollow(trx: Transaction, accountId: string, targetId: string, delta: number): Promise<void> {
    await this.accounts.adjustCounter(trx, accountId, 'following_count', delta);
    await this.accounts.adjustCounter(trx, targetId, 'followers_count', delta);
  }

  /**
   * Ends a follow or a follow request of `from` to `to`: every way one ends (unfollow, removing a
   * follower, rejection, block, a peer's Undo or Reject through the inbox) comes here. The
   * endorsement goes with the follow, and once neither a follow nor a request remains `to` leaves
   * `from`'s lists. False when there was none.
   */
  private async endFollow(
    trx: Transaction,
    table: 'follows' | 'follow_requests',
    from: string,
    to: string,
  ): Promise<boolean> {
    if (!(await this.repo.deleteEdge(trx, table, from, to))) return false;
    if (table === 'follows') await this.featured.unendorse(from, to, trx);
    const other = table === 'follows' ? 'follow_requests' : 'follows';
    if (!(await this.repo.existsIn(trx, other, from, to))) await this.lists.removeFromOwnersLists(trx, from, to);
    return true;
  }

  async unfollow(viewerId: string, targetId: string): Promise<void> {
    await this.target(viewerId, targetId);
    const removed = await this.ctx.db.transaction(async (trx) => {
      const followed = await this.endFollow(trx, 'follows', viewerId, targetId);
      if (followed) await this.countFollow(trx, viewerId, targetId, -1);
      const requested = await this.endFollow(trx, 'follow_requests', viewerId, targetId);
      await this.notifications.remove(trx, { accountId: targetId, fromAccountId: viewerId, type: 'follow' });
      await this.notifications.remove(trx, { accountId: targetId, fromAccountId: viewerId, type: 'follow_request' });
      return followed || requested;
    });
    if (removed) this.ctx.events.emit('follow.removed', { accountId: viewerId, targetAccountId: targetId });
  }

  /** The target (viewer) accepts `requesterId`'s request. */
  async authorize(viewerId: string, requesterId: string): Promise<void> {
    const done = await this.ctx.db.transaction(async (trx) => {
      const request = await this.repo.followRequestIn(trx, requesterId, viewerId);
      if (!request) return false;
      // The uri is the requester's Follow activity (federation answers it with Accept). The follow
      // exists before the request goes, so the requester's lists keep the account.
      await this.repo.insertEdge(trx, 'follows', {
        account_id: requesterId,
        target_account_id: viewerId,
        show_reblogs: request.show_reblogs,
        notify: request.notify,
        languages: request.languages,
        uri: request.uri,
        created_at: nowIso(this.ctx.now()),
      });
      await this.endFollow(trx, 'follow_requests', requesterId, viewerId);
      await this.countFollow(trx, requesterId, viewerId, 1);
      await this.notifications.remove(trx, { accountId: viewerId, fromAccountId: requesterId, type: 'follow_request' });
      return true;
    });
    if (!done) throw notFound();
    this.ctx.events.emit('follow_request.authorized', { accountId: requesterId, targetAccountId: viewerId });
  }

  async reject(viewerId: string, requesterId: string): Promise<void> {
    const done = await this.ctx.db.transaction(async (trx) => {
      const gone = await this.endFollow(trx, 'follow_requests', requesterId, viewerId);
      if (gone)
        await this.notifications.remove(trx, {
          accountId: viewerId,
          fromAccountId: requesterId,
          type: 'follow_request',
        });
      return gone;
    });
    if (!done) throw notFound();
    this.ctx.events.emit('follow_request.rejected', { accountId: requesterId, targetAccountId: viewerId });
  }

  /** After unlocking: pending requests become follows, except from silenced or muted requesters. */
  async authorizePendingOnUnlock(viewerId: string): Promise<void> {
    const requesters = await this.repo.pendingRequesters(this.ctx.db, viewerId);
    for (const { account_id: requesterId } of requesters) {
      const requester = await this.accounts.byId(requesterId);
      if (!requester || requester.silenced_at || (await this.repo.mutes(viewerId, requesterId))) continue;
      await this.authorize(viewerId, requesterId);
    }
  }

  async block(viewerId: string, targetId: string): Promise<void> {
    await this.target(viewerId, targetId);
    await this.ctx.db.transaction(async (trx) => {
      await this.repo.insertEdge(trx, 'blocks', {
        account_id: viewerId,
        target_account_id: targetId,
        created_at: nowIso(this.ctx.now()),
      });
      for (const [from, to] of [
        [viewerId, targetId],
        [targetId, viewerId],
      ] as const) {
        if (await this.endFollow(trx, 'follows', from, to)) await this.countFollow(trx, from, to, -1);
        await this.endFollow(trx, 'follow_requests', from, to);
      }
    });
    this.ctx.events.emit('block.created', { accountId: viewerId, targetAccountId: targetId });
  }

  async unblock(viewerId: string, targetId: string): Promise<void> {
    await this.target(viewerId, targetId);
    const removed = await this.ctx.db.transaction((trx) => this.repo.deleteEdge(trx, 'blocks', viewerId, targetId));
    if (removed) this.ctx.events.emit('block.removed', { accountId: viewerId, targetAccountId: targetId });
  }

  /** `duration` in seconds; 0 or absent mutes indefinitely. */
  async mute(viewerId: string, targetId: string, notifications = true, duration = 0): Promise<void> {
    await this.target(viewerId, targetId);
    if (!Number.isInteger(duration) || duration < 0)
      throw unprocessable('Validation failed: Duration must be a positive number of seconds');
    const expiresAt = duration > 0 ? isoAfterSeconds(this.ctx.now(), duration, 'Duration') : null;
    await this.repo.upsertMute({
      accountId: viewerId,
      targetId,
      hideNotifications: notifications,
      expiresAt,
      createdAt: nowIso(this.ctx.now()),
    });
    this.ctx.events.emit('mute.changed', { accountId: viewerId, targetAccountId: targetId, muted: true });
  }

  async unmute(viewerId: string, targetId: string): Promise<void> {
    await this.target(viewerId, targetId);
    await this.repo.deleteMute(viewerId, targetId);
    this.ctx.events.emit('mute.changed', { accountId: viewerId, targetAccountId: targetId, muted: false });
  }

  /** The periodic job: mutes whose duration ran out are removed. */
  async expireMutes(): Promise<number> {
    return this.repo.deleteExpiredMutes();
  }

  async setNote(viewerId: string, targetId: string, comment: string): Promise<void> {
    await this.target(viewerId, targetId);
    if (comment.length > 2000)
      throw unprocessable('Validation failed: Comment is too long (maximum is 2000 characters)');
    await this.repo.setNote(viewerId, targetId, comment);
  }

  async blockDomain(viewerId: string, domain: string): Promise<void> {
    const normalized = normalizeDomain(domain);
    if (!normalized) throw unprocessable('Validation failed: Domain is invalid');
    if (normalized === this.ctx.localDomain.toLowerCase())
      throw unprocessable('Validation failed: Domain cannot be your own');
    await this.repo.addDomainBlock(viewerId, normalized);
  }

  async unblockDomain(viewerId: string, domain: string): Promise<void> {
    const normalized = normalizeDomain(domain);
    if (normalized) await this.repo.removeDomainBlock(viewerId, normalized);
  }
}

function normalizeDomain(domain: string): string | null {
  const text = domain
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/\/.*$/, '');
  return (/^[a-z0-9.-]+(:\d{1,5})?$/.test(text) && text.includes('.')) ||
    /^[a-z0-9-]+:\d{1,5}$/.test(text) ||
    text === 'localhost'
    ? text
    : null;
}
