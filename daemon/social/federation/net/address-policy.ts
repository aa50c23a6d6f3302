/**
 * Which peers we may talk to. Without NESTBOX_FEDERATION_ALLOW_PRIVATE only https to public
 * addresses; with it (tests on loopback) also plain http and loopback/private ranges. The check
 * runs on the resolved address at connect time, so a name that resolves to 127.0.0.1 is caught too.
 */
import { BlockList, isIP } from 'node:net';

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

export class ForbiddenAddressError extends Error {
  constructor(readonly target: string) {
    super(`federation with ${target} is not allowed (loopback or private address)`);
    this.name = 'ForbiddenAddressError';
  }
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return PRIVATE.check(mapped[1], 'ipv4');
    return PRIVATE.check(address, 'ipv6');
  }
  return true;
}

export interface AddressPolicy {
  allowPrivate: boolean;
}

/** The URL a peer may be fetched at, or an error saying why not. */
export function checkUrl(policy: AddressPolicy, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ForbiddenAddressError(String(raw).slice(0, 200));
  }
  if (url.username || url.password) throw new ForbiddenAddressError(url.host);
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:'))
    throw new ForbiddenAddressError(url.origin);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (
    !policy.allowPrivate &&
    (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) && isPrivateAddress(host)))
  ) {
    throw new ForbiddenAddressError(url.host);
  }
  return url;
}

/** Loopback and private hosts speak plain http (tests); everyone else https. */
export function schemeFor(policy: AddressPolicy, host: string): 'http' | 'https' {
  if (!policy.allowPrivate) return 'https';
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return name === 'localhost' || (isIP(name) && isPrivateAddress(name)) ? 'http' : 'https';
}
