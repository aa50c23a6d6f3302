/**
 * The box's own global IPv6 address and its IPv6 router, as the kernel holds them (SLAAC from the
 * home router's advertisements, or DHCPv6): read from /proc/net/if_inet6 and /proc/net/ipv6_route
 * of the daemon's own network namespace, which carry the flags `ip -6 addr` shows (temporary,
 * deprecated, tentative) without a child process.
 */
import { readFile } from 'node:fs/promises';

/** Low byte of ifa_flags as /proc/net/if_inet6 prints it (linux/if_addr.h). */
const IFA_F_TEMPORARY = 0x01;
const IFA_F_DADFAILED = 0x08;
const IFA_F_DEPRECATED = 0x20;
const IFA_F_TENTATIVE = 0x40;
const UNUSABLE = IFA_F_TEMPORARY | IFA_F_DADFAILED | IFA_F_DEPRECATED | IFA_F_TENTATIVE;
const SCOPE_GLOBAL = 0x00;

export interface Ipv6Presence {
  /** The box's global, stable (not temporary), preferred address. */
  address: string;
  /** The interface it is on. */
  iface: string;
  /** The default route's next hop (the home router, usually link-local), or null without one. */
  router: string | null;
}

/** 32 hex digits → the canonical text form ("2001:db8::1", RFC 5952), as WHATWG URL writes it. */
export function hexToIpv6(hex: string): string {
  const full = (hex.match(/.{4}/g) ?? []).join(':');
  return new URL(`http://[${full}]/`).hostname.slice(1, -1);
}

/** fc00::/7: unique local addresses, never reachable from the internet. */
function isUniqueLocal(hex: string): boolean {
  return (parseInt(hex.slice(0, 2), 16) & 0xfe) === 0xfc;
}

/**
 * The first global, non-ULA address on `iface` (any non-loopback interface when null) that is
 * neither temporary (privacy extensions: it changes every day), deprecated nor still in DAD.
 */
export function pickGlobalAddress(ifInet6: string, iface: string | null): { address: string; iface: string } | null {
  for (const line of ifInet6.split('\n')) {
    const [hex, , , scope, flags, name] = line.trim().split(/\s+/);
    if (!hex || hex.length !== 32 || !name) continue;
    if (iface ? name !== iface : name === 'lo') continue;
    if (parseInt(scope, 16) !== SCOPE_GLOBAL || isUniqueLocal(hex)) continue;
    if (parseInt(flags, 16) & UNUSABLE) continue;
    return { address: hexToIpv6(hex), iface: name };
  }
  return null;
}

/** The next hop of the IPv6 default route through `iface`, from /proc/net/ipv6_route. */
export function defaultRouter(ipv6Route: string, iface: string): string | null {
  for (const line of ipv6Route.split('\n')) {
    const [destination, prefix, , , nextHop, , , , , name] = line.trim().split(/\s+/);
    if (name !== iface || prefix !== '00' || !/^0{32}$/.test(destination ?? '')) continue;
    if (nextHop && !/^0{32}$/.test(nextHop)) return hexToIpv6(nextHop);
  }
  return null;
}

/** What the kernel says now; null when the box has no global IPv6 address (or no IPv6 at all). */
export async function readIpv6Presence(iface: string | null): Promise<Ipv6Presence | null> {
  const addresses = await readFile('/proc/net/if_inet6', 'utf8').catch(() => '');
  const found = pickGlobalAddress(addresses, iface);
  if (!found) return null;
  const routes = await readFile('/proc/net/ipv6_route', 'utf8').catch(() => '');
  return { ...found, router: defaultRouter(routes, found.iface) };
}
