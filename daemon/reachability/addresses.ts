/**
 * Addresses the flow reasons about: whether an external address is really public, how the box's
 * own lookups resolve names (through the lease's DNS servers), and the address-echo fallback.
 */
import type { LookupFunction } from 'node:net';
import { isIPv4 } from 'node:net';
import { resolvePeerHost, type PeerDnsOptions } from '../social/federation/net/dns.js';

/** 10/8, 172.16/12, 192.168/16 or 100.64/10: another NAT stands in front (double or carrier-grade NAT). */
export function isBehindAnotherNat(address: string): boolean {
  if (!isIPv4(address)) return false;
  const [a, b] = address.split('.').map(Number);
  return (
    a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)
  );
}

/** A dns.lookup-shaped function over resolvePeerHost (c-ares, the given servers), for node:http agents. */
export function lookupThrough(dns: PeerDnsOptions): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    resolvePeerHost(hostname, dns, family).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** The address the echo URL says the box comes from; null when it gives none that parses. */
export async function echoedAddress(url: string, fetcher: (url: string) => Promise<Response>): Promise<string | null> {
  const answer = await fetcher(url);
  if (!answer.ok) return null;
  const text = (await answer.text()).trim().slice(0, 100);
  return isIPv4(text) ? text : null;
}
