/** What every part of federation needs: the social context and services, the peer client, the log. */
import type { Logger } from '../../log/logger.js';
import type { SocialContext } from '../context.js';
import type { SocialServices } from '../services.js';
import type { PeerClient } from './net/client.js';
import type { AddressPolicy } from './net/address-policy.js';
import type { InstanceActor } from './actors/instance.js';
import type { FederationPeers } from './peers.js';

export interface FederationContext {
  social: SocialContext;
  services: SocialServices;
  client: PeerClient;
  /** Signs our fetches; served at /actor. */
  instanceActor: InstanceActor;
  policy: AddressPolicy;
  log: Logger;
  baseUrl: string;
  /** Host (and port) of the base URL. */
  localDomain: string;
}

/**
 * The services the fetching side (remote actors and statuses) writes through beside the statuses
 * service: remote actors are built before it (it looks mentioned accounts up through them), and
 * remote statuses are given it.
 */
export type FetchServices = Pick<SocialServices, 'accounts' | 'tags' | 'polls' | 'media'>;

/** What the fetching side needs: built before statuses and search, so without them. */
export interface FetchContext extends Omit<FederationContext, 'services'> {
  services: FetchServices;
}

export function fetchContext(peers: FederationPeers, social: SocialContext, services: FetchServices): FetchContext {
  return { ...peers, social, services, baseUrl: social.config.baseUrl, localDomain: social.localDomain };
}

/** True when a URI belongs to this instance. */
export function isLocalUri(fed: FetchContext, uri: string): boolean {
  return uri === fed.baseUrl || uri.startsWith(`${fed.baseUrl}/`);
}
