/**
 * An owner's own DNS on the virtual internet: knotd as the authoritative primary of the owner's
 * zone, taking RFC 2136 updates signed with the owner's TSIG key, and a public resolver (dnsmasq,
 * no cache) that sends the zone's questions to it and everything else to challtestsrv. With it,
 * pebble, the home router's DNS and the internet's agents all resolve through that resolver, so a
 * record the box writes to its owner's server (its address, DNS-01's `_acme-challenge` TXT) is what
 * the CA and everyone else see, as delegation does on the real internet.
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { startKnot, type KnotServer } from '../knot-dns.js';
import { startDnsmasq, type DhcpServer } from '../virtual-home/dhcp.js';

export const OWNER_DNS = {
  /** The owner's primary (knotd). */
  primary: '11.77.1.54',
  /** The public resolver everyone asks when the owner's zone exists. */
  resolver: '11.77.1.52',
} as const;

export interface OwnerDnsOptions {
  zone: string;
  key: { name: string; algorithm: string; secret: string };
}

export interface OwnerDns {
  knot: KnotServer;
  /** "address:port" of the primary, as the box's RFC 2136 `server` setting takes it. */
  server: string;
  stop(): Promise<void>;
}

/** Starts the owner's primary and the public resolver in `namespace`; `publicDns` answers the rest. */
export async function startOwnerDns(
  namespace: string,
  dir: string,
  options: OwnerDnsOptions,
  publicDns: string,
): Promise<OwnerDns> {
  const knotDir = join(dir, 'owner-dns');
  mkdirSync(knotDir, { recursive: true });
  const knot = await startKnot({
    zone: options.zone,
    key: options.key,
    namespace,
    address: OWNER_DNS.primary,
    port: 53,
    dir: knotDir,
  });
  let resolver: DhcpServer;
  try {
    resolver = await startDnsmasq(namespace, [
      '--keep-in-foreground',
      '--log-facility=-',
      '--conf-file=/dev/null',
      '--user=root',
      '--pid-file=',
      `--listen-address=${OWNER_DNS.resolver}`,
      '--bind-interfaces',
      '--no-resolv',
      '--no-hosts',
      // No cache: an update is seen by the next question, as the CA's fresh lookups see it.
      '--cache-size=0',
      '--no-negcache',
      `--server=/${options.zone}/${OWNER_DNS.primary}`,
      `--server=${publicDns}`,
    ]);
  } catch (error) {
    await knot.stop();
    throw error;
  }
  return {
    knot,
    server: `${OWNER_DNS.primary}:53`,
    async stop() {
      await resolver.process.stop(2000);
      await knot.stop();
    },
  };
}
