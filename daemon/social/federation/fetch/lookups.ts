/**
 * The fetching side of federation that search and the inbox call: remote actors (built first:
 * posting looks mentioned accounts up through them), remote statuses (stored through the statuses
 * service they are given) and search with resolve=true.
 */
import type { RemoteActors } from '../actors/remote.js';
import { RemoteStatuses, type PeerStatusDoor } from '../objects/remote-statuses.js';
import { Resolver, type Resolved } from './resolver.js';

export class RemoteLookups {
  readonly statuses: RemoteStatuses;
  private readonly resolver: Resolver;

  constructor(
    readonly actors: RemoteActors,
    door: PeerStatusDoor,
  ) {
    this.statuses = new RemoteStatuses(actors.fed, actors, door);
    this.resolver = new Resolver(actors.fed, actors, this.statuses);
  }

  /** An account address or URL fetched over ActivityPub and stored. */
  resolve(query: string): Promise<Resolved> {
    return this.resolver.resolve(query);
  }
}
