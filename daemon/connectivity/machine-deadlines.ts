/**
 * When the connectivity machine's timers fall due, computed from its facts and the policy, pure:
 * the machine asks these after every input to know what a tick may change and when the next is.
 */
import type { MachineSnapshot } from './machine-io.js';
import type { ConnectivityPolicy } from './policy.js';

export interface Deadlines {
  /** The device counts as lost when no heartbeat came by then. */
  heartbeat: number | null;
  /** The next connect attempt, while one may start. */
  connect: number | null;
  /** The grace period's end: setup mode is wanted from then. */
  fallback: number | null;
  /** Setup mode may end (online and stable, nobody at the portal). */
  stable: number | null;
  /** Associated without an address until then: dropped. */
  lease: number | null;
}

export function deadlinesOf(facts: MachineSnapshot, policy: ConnectivityPolicy): Deadlines {
  return {
    heartbeat: heartbeatDeadline(facts, policy),
    connect: connectDeadline(facts),
    fallback: fallbackDeadline(facts, policy),
    stable: stableDeadline(facts, policy),
    lease:
      facts.station === 'associated' && facts.associatedAt !== null ? facts.associatedAt + policy.leaseTimeoutMs : null,
  };
}

function heartbeatDeadline(facts: MachineSnapshot, policy: ConnectivityPolicy): number | null {
  if (facts.device !== 'ready' || facts.lastHeartbeatAt === null) return null;
  return facts.lastHeartbeatAt + policy.heartbeatExpectedMs * policy.heartbeatMisses;
}

function connectDeadline(facts: MachineSnapshot): number | null {
  const joined = facts.station === 'up' || facts.station === 'associated';
  const mayConnect = facts.station === 'down' || (joined && facts.userRequest);
  return mayConnect && facts.hasNetworks ? facts.connectAt : null;
}

function fallbackDeadline(facts: MachineSnapshot, policy: ConnectivityPolicy): number | null {
  if (facts.station === 'up' || facts.setupWanted || facts.disconnectedSince === null) return null;
  return facts.disconnectedSince + policy.fallbackAfterMs;
}

/**
 * When setup mode may end once online: after the connection was stable and, while a phone is on
 * the AP, once the portal has had no request from the AP side for portalIdleMs. A phone merely
 * associated does not hold it (phones re-join networks they know, and the setup network's key is
 * on the label); a person using the portal does. Null while the owner's hold lasts.
 */
function stableDeadline(facts: MachineSnapshot, policy: ConnectivityPolicy): number | null {
  if (facts.station !== 'up' || !facts.setupWanted || facts.connectedSince === null) return null;
  if (facts.forcedUntil !== null) return null;
  const stable = facts.connectedSince + policy.stableMs;
  if (facts.phones === 0 || facts.portalUsedAt === null) return stable;
  return Math.max(stable, facts.portalUsedAt + policy.portalIdleMs);
}

/**
 * A person is at the setup portal: a request from the AP side came within portalIdleMs. A
 * phone merely associated with the AP (left there, or one that did nothing) is not one.
 */
export function portalInUse(facts: MachineSnapshot, policy: ConnectivityPolicy, now: number): boolean {
  return facts.portalUsedAt !== null && now - facts.portalUsedAt < policy.portalIdleMs;
}
