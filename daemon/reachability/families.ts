/**
 * IPv4 and IPv6 side by side: the router's forwarding (IPv4) and its firewall's pinholes (IPv6)
 * make one port-mapping step, and each family's reach is told apart, so a home behind
 * carrier-grade NAT that has IPv6 is reachable over IPv6 and says that IPv4 is not.
 */
import type { FamilyReach, Step } from './model.js';
import type { PortPair } from './port-mapper.js';

export interface FamilyOutcome {
  /** The router's forwarding (IPv4) or pinholes (IPv6); `off` when it does not apply. */
  mapping: Step;
  /** The address the name should point at in this family; null when none can reach the box. */
  address: string | null;
  /** Why this family cannot reach the box, when known before DNS (another NAT in front). */
  blocked: string | null;
}

/** One port-mapping step from both families: ok when either lets the internet in. */
export function combinedMappingStep(ipv4: Step, ipv6: Step): Step {
  if (ipv6.state === 'off') return ipv4;
  const words = (step: Step) => step.detail ?? step.state;
  const state = ipv4.state === 'ok' || ipv6.state === 'ok' ? 'ok' : ipv6.state === 'failed' ? 'failed' : ipv4.state;
  // The family that works comes first: it is what the owner has.
  const detail =
    ipv4.state !== 'ok' && ipv6.state === 'ok'
      ? `IPv6: ${words(ipv6)}. IPv4: ${words(ipv4)}`
      : `IPv4: ${words(ipv4)}. IPv6: ${words(ipv6)}`;
  return { state, detail };
}

/**
 * Each family's reach once DNS is judged: ok when its path is open and the name points there. An
 * IPv6 address the box cannot publish says why ("not published: …"), and that its old AAAA record
 * was removed when it was.
 */
export function familyReach(
  ipv4: FamilyOutcome,
  ipv6: FamilyOutcome,
  pointing: { ipv4: boolean; ipv6: boolean },
  withdrawnIpv6: string | null = null,
): FamilyReach {
  const reach = (family: 'IPv4' | 'IPv6', outcome: FamilyOutcome, points: boolean): Step => {
    if (outcome.mapping.state === 'off' && !outcome.address)
      return { state: 'off', detail: outcome.mapping.detail ?? `no ${family} address` };
    if (outcome.blocked) return { state: 'failed', detail: outcome.blocked };
    if (outcome.mapping.state === 'failed') return { state: 'failed', detail: outcome.mapping.detail };
    if (!outcome.address) return { state: 'pending', detail: `waiting for the ${family} address` };
    if (!points) return { state: 'pending', detail: `waits for the name to point at ${outcome.address}` };
    return { state: 'ok', detail: `reachable over ${family} at ${outcome.address}` };
  };
  const v6 = reach('IPv6', ipv6, pointing.ipv6);
  const unpublished = !ipv6.address && (v6.state === 'off' || v6.state === 'failed');
  return {
    ipv4: reach('IPv4', ipv4, pointing.ipv4),
    ipv6: unpublished
      ? {
          state: v6.state,
          detail:
            `not published: ${v6.detail ?? 'no IPv6 address'}` +
            (withdrawnIpv6 ? `; the AAAA record for ${withdrawnIpv6} was removed` : ''),
        }
      : v6,
  };
}

/** Why IPv4 fails when the box is reachable over IPv6 only (carrier-grade NAT on IPv4); else null. */
export function onlyOverIpv6(families: FamilyReach): string | null {
  if (families.ipv6.state !== 'ok' || families.ipv4.state !== 'failed') return null;
  return `IPv4: ${families.ipv4.detail ?? 'not reachable'}`;
}

/** "port 443 and port 80", or "port 443 (to 8443) and …" when the box listens elsewhere. */
export function describePairs(pairs: PortPair[]): string {
  return pairs
    .map((p) => (p.external === p.internal ? `port ${p.external}` : `port ${p.external} (to ${p.internal})`))
    .join(' and ');
}
