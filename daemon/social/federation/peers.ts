/**
 * How federation reaches peers: the peer client (its fetches signed as the instance actor) and the
 * address policy. Built before the social services, which look remote accounts up through it.
 */
import type { Config } from '../../config.js';
import type { Logger } from '../../log/logger.js';
import type { Db } from '../../store/db.js';
import { VERSION } from '../../version.js';
import { localDomainOf } from '../context.js';
import { InstanceActor } from './actors/instance.js';
import { PeerClient } from './net/client.js';
import type { AddressPolicy } from './net/address-policy.js';

export interface FederationPeers {
  client: PeerClient;
  instanceActor: InstanceActor;
  policy: AddressPolicy;
  log: Logger;
}

export interface FederationPeersOptions {
  db: Db;
  config: Config;
  log: Logger;
  /** The DNS servers to ask for peers' names (the station lease's with the network layer on); default: the system's. */
  dnsServers?: () => readonly string[] | null;
}

export function federationPeers({ db, config, log, dnsServers }: FederationPeersOptions): FederationPeers {
  const policy = { allowPrivate: config.federationAllowPrivate };
  const instanceActor = new InstanceActor(db, config.baseUrl, localDomainOf(config.baseUrl));
  const client = new PeerClient({
    ...policy,
    userAgent: `Nestbox/${VERSION} (+${config.baseUrl}/)`,
    fetchKey: () => instanceActor.signingKey(),
    dns: dnsServers ? { servers: dnsServers } : undefined,
  });
  return { client, instanceActor, policy, log };
}
