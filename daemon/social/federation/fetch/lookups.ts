/**
 * The fetching side of federation the social services call: a mentioned account not known here
 * looked up at post time (WebFinger), and search with resolve=true. Built with the services it
 * writes through, before statuses and search, which take it in.
 */
import type { AccountRow } from '../../accounts/repo.js';
import type { SocialContext } from '../../context.js';
import type { FetchContext, FetchServices } from '../context.js';
import type { FederationPeers } from '../peers.js';
import { RemoteActors } from '../actors/remote.js';
import { RemoteStatuses } from '../objects/remote-statuses.js';
import { Resolver, type Resolved } from './resolver.js';

export class RemoteLookups {
  readonly actors: RemoteActors;
  readonly statuses: RemoteStatuses;
  private readonly resolver: Resolver;

  constructor(private readonly fed: FetchContext) {
    this.actors = new RemoteActors(fed);
    this.statuses = new RemoteStatuses(fed, this.actors);
    this.resolver = new Resolver(fed, this.actors, this.statuses);
  }

  static create(peers: FederationPeers, social: SocialContext, services: FetchServices): RemoteLookups {
    return new RemoteLookups({
      ...peers,
      social,
      services,
      baseUrl: social.config.baseUrl,
      localDomain: social.localDomain,
    });
  }

  /** A remote account by its address, fetched when not known yet; undefined when its server does not know it. */
  async account(username: string, domain: string): Promise<AccountRow | undefined> {
    try {
      const actor = await this.actors.resolveAcct(username, domain);
      return await this.fed.services.accounts.byId(actor.id);
    } catch (error) {
      this.fed.log.info('mentioned account not found', {
        acct: `${username}@${domain}`,
        error: (error as Error).message,
      });
      return undefined;
    }
  }

  /** An account address or URL fetched over ActivityPub and stored. */
  resolve(query: string): Promise<Resolved> {
    return this.resolver.resolve(query);
  }
}
