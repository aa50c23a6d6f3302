/**
 * Name resolution for requests to other servers, asked of DNS directly (c-ares, as Mastodon asks
 * Resolv::DNS) instead of getaddrinfo. getaddrinfo runs in libuv's thread pool, the pool SQLite and
 * file reads (the setup page too) need: when the network fails upstream, each lookup of a retrying
 * delivery holds a thread for its whole timeout (seconds), and libuv lets lookups take up to half
 * the pool, one of the box's two threads. DNS queries here are sockets polled by the event loop and
 * hold no thread.
 */
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export interface PeerDnsOptions {
  /**
   * DNS servers ("127.0.0.1:5353"), or a function giving the current ones (the station lease's,
   * read for each name); by default, or when it gives none, the system's.
   */
  servers?: string[] | (() => readonly string[] | null);
  /** Per attempt; two attempts per server. */
  timeoutMs?: number;
}

const LOOPBACK: ResolvedAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/** The addresses of `hostname`: an address as itself, localhost as loopback (RFC 6761), else A and AAAA records. */
export async function resolvePeerHost(
  hostname: string,
  options: PeerDnsOptions = {},
  family: 0 | 4 | 6 = 0,
): Promise<ResolvedAddress[]> {
  const literal = isIP(hostname);
  if (literal) return [{ address: hostname, family: literal as 4 | 6 }];
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost'))
    return LOOPBACK.filter((entry) => !family || entry.family === family);
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 2500, tries: 2 });
  const servers = typeof options.servers === 'function' ? options.servers() : options.servers;
  if (servers?.length) resolver.setServers(servers);
  const [v4, v6] = await Promise.allSettled([
    family === 6 ? Promise.resolve([]) : resolver.resolve4(name),
    family === 4 ? Promise.resolve([]) : resolver.resolve6(name),
  ]);
  const addresses = [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
  ];
  if (addresses.length) return addresses;
  // Neither kind of record: the IPv4 query's reason (ENOTFOUND, ETIMEOUT, ...) says most.
  throw (
    [v4, v6].map((result) => (result.status === 'rejected' ? (result.reason as Error) : null)).find(Boolean) ??
    Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' })
  );
}
