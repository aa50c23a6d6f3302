/**
 * The IPv6 side of port mapping: pinholes in the home router's firewall for the box's global
 * address, asked with PCP MAP. Every call opens them again, long before the lifetime ends (and a
 * router that rebooted and forgot them gets them back); a new address has the old pinholes
 * deleted first. Deleting them (lifetime 0, same nonce) on stop and turn-off.
 *
 * A renewal is a deletion and a new MAP rather than a MAP over the living pinhole: miniupnpd 2.3.1
 * (Debian 12; nftpinhole.c `update_pinhole`) loses the pinhole's description when it extends one,
 * and its PCP server then refuses to delete it (NOT_AUTHORIZED: the nonce no longer matches), so
 * the pinhole would outlive the box's turn-off by up to its whole lifetime.
 */
import { describePairs, type FamilyOutcome } from './families.js';
import type { Ipv6Presence } from './ipv6-address.js';
import { newNonce, PcpError, pcpMap } from './pcp.js';
import type { PortPair } from './port-mapper.js';

/** Asked each cycle (every 30 s at most), so an hour is never near its end while the box runs. */
const LIFETIME_S = 3600;

export class PinholeRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PinholeRefused';
  }
}

export interface PinholeOptions {
  /** The router's PCP port (5351; a test's server may listen elsewhere). */
  pcpPort?: number;
  timeoutMs?: number;
}

export class Ipv6Pinholes {
  private readonly nonce = newNonce();
  private opened: { presence: Ipv6Presence; ports: number[] } | null = null;

  constructor(private readonly options: PinholeOptions = {}) {}

  /** Opens (or renews) `ports` to the box's address; throws PinholeRefused with the reason. */
  async open(presence: Ipv6Presence, ports: number[]): Promise<{ lifetime: number }> {
    const before = this.opened;
    if (before && (before.presence.address !== presence.address || before.presence.router !== presence.router))
      await this.closeAll();
    if (!presence.router)
      throw new PinholeRefused('the box has an IPv6 address but no IPv6 router to ask (no default route)');
    const renewing = this.opened?.presence.address === presence.address ? this.opened.ports : [];
    let lifetime = LIFETIME_S;
    try {
      for (const port of ports) {
        if (renewing.includes(port)) await this.map(presence, port, 0).catch(() => undefined);
        const answer = await this.map(presence, port, LIFETIME_S);
        lifetime = Math.min(lifetime, answer.lifetime);
      }
    } catch (error) {
      throw new PinholeRefused(
        error instanceof PcpError ? error.message : `the PCP request failed (${(error as Error).message})`,
      );
    }
    this.opened = { presence, ports };
    return { lifetime };
  }

  /**
   * Deletes the pinholes this box opened; returns what the router said to those it did not delete
   * (best effort: their lifetime ends them anyway).
   */
  async closeAll(): Promise<string[]> {
    const opened = this.opened;
    this.opened = null;
    if (!opened?.presence.router) return [];
    const problems: string[] = [];
    for (const port of opened.ports)
      await this.map(opened.presence, port, 0).catch((error: Error) => problems.push(`port ${port}: ${error.message}`));
    return problems;
  }

  private map(presence: Ipv6Presence, port: number, lifetime: number) {
    return pcpMap(
      presence.router!,
      { client: presence.address, port, lifetime, nonce: this.nonce },
      { iface: presence.iface, port: this.options.pcpPort, timeoutMs: this.options.timeoutMs },
    );
  }
}

/**
 * The IPv6 side of the port-mapping step: `off` without a global address (or with port mapping
 * turned off: the owner opens the firewall; the address is still published), the pinholes opened
 * for the box's own ports (no translation in IPv6: they must be 443 and 80 themselves), or why not.
 */
export async function ipv6Outcome(
  presence: Ipv6Presence | null,
  pinholes: Ipv6Pinholes | null,
  pairs: PortPair[],
): Promise<FamilyOutcome> {
  const outcome = (state: 'ok' | 'off' | 'failed', detail: string, address: string | null): FamilyOutcome => ({
    mapping: { state, detail },
    address,
    blocked: null,
  });
  if (!presence) return outcome('off', 'the home network gives the box no global IPv6 address', null);
  const words = `${describePairs(pairs)} through to ${presence.address}`;
  if (!pinholes)
    return outcome(
      'off',
      `port mapping is turned off: let ${words} in the router's IPv6 firewall by hand`,
      presence.address,
    );
  if (pairs.some((pair) => pair.external !== pair.internal))
    return outcome(
      'failed',
      'IPv6 has no port translation: the box must listen on ports 443 and 80 itself to be reached over IPv6',
      null,
    );
  try {
    await pinholes.open(
      presence,
      pairs.map((pair) => pair.internal),
    );
    return outcome('ok', `the router's firewall lets ${words} (PCP)`, presence.address);
  } catch (error) {
    return outcome(
      'failed',
      `the router's firewall was not opened for ${presence.address}: ${(error as Error).message}. Let ${describePairs(pairs)} through to it by hand`,
      null,
    );
  }
}
