/**
 * Account migration of a local account: aliases (the accounts it also is, so a move *to* it is
 * accepted elsewhere) and the move itself, which publishes Move to the followers and unfollows
 * nothing locally (the followers' servers move them).
 */
import { nowIso } from '../../time.js';
import { unprocessable } from '../../../lib/errors.js';
import type { FederationContext } from '../context.js';
import type { RemoteActors } from './remote.js';
import type { Outbound } from '../delivery/outbound.js';
import { ActorsRepo } from './repo.js';
import { LocalMovesRepo } from './moves-repo.js';
import * as activities from '../objects/activities.js';
import { parseAcct } from '../fetch/resolver.js';
import { isFetchFailure } from '../net/fetch-failure.js';
import { ForbiddenAddressError } from '../net/address-policy.js';
import { InvalidDocumentError } from '../objects/ld.js';

export class AccountMoves {
  private readonly repo: ActorsRepo;
  private readonly moves: LocalMovesRepo;

  constructor(
    private readonly fed: FederationContext,
    private readonly remote: RemoteActors,
    private readonly outbound: Outbound,
  ) {
    this.repo = new ActorsRepo(fed.social);
    this.moves = new LocalMovesRepo(fed.social);
  }

  /** `address` is `user@host[:port]` or an actor URI; one that cannot be reached or read is the caller's error (422). */
  private async target(address: string) {
    const acct = parseAcct(address);
    let row;
    try {
      row = acct ? await this.remote.resolveAcct(acct.username, acct.domain) : await this.remote.resolve(address);
    } catch (error) {
      if (isFetchFailure(error) || error instanceof ForbiddenAddressError || error instanceof InvalidDocumentError) {
        throw unprocessable(
          `Validation failed: Could not resolve the target account (${(error as Error).message.slice(0, 120)})`,
        );
      }
      throw error;
    }
    if (row.domain === null) throw unprocessable('Validation failed: Target must be a remote account');
    return row;
  }

  async addAlias(accountId: string, address: string): Promise<string> {
    const target = await this.target(address);
    await this.moves.addAlias(accountId, target.uri);
    this.fed.social.events.emit('account.updated', { accountId });
    return target.uri;
  }

  /** Moves a local account to `address`, which must list it among its aliases. */
  async move(accountId: string, address: string): Promise<string> {
    const actor = await this.repo.byId(accountId);
    if (!actor || actor.domain !== null) throw unprocessable('Validation failed: Only local accounts move');
    const target = await this.remote.resolve((await this.target(address)).uri, { refresh: true });
    const aliases = JSON.parse(target.also_known_as ?? '[]') as string[];
    if (!aliases.includes(actor.uri))
      throw unprocessable('Validation failed: The target account must name this account as an alias');
    await this.moves.recordMove(accountId, target, nowIso(this.fed.social.now()));
    await this.outbound.send(
      actor,
      await this.repo.followerInboxes(accountId),
      activities.move(actor.uri, target.uri, this.fed.social.now()),
    );
    return target.uri;
  }
}
