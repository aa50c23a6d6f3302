/**
 * The DHCP client's events as the station reads them: one JSON line per event from the event
 * script (scripts/network/udhcpc-event), checked field by field, since the values come from
 * whatever DHCP server the home network has.
 */
import { isIPv4 } from 'node:net';
import type { NetworkLease } from '../device/state.js';

export type DhcpEventName = 'deconfig' | 'bound' | 'renew' | 'leasefail' | 'nak';

export interface DhcpEvent {
  event: DhcpEventName;
  /** Present for bound and renew. */
  lease: Omit<NetworkLease, 'mac'> | null;
}

const EVENTS: readonly DhcpEventName[] = ['deconfig', 'bound', 'renew', 'leasefail', 'nak'];

/** Parses one line of the event script; null for anything that is not a well-formed event. */
export function parseDhcpEvent(line: string, now: Date = new Date()): DhcpEvent | null {
  let raw: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
    raw = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  const event = raw.event;
  if (typeof event !== 'string' || !(EVENTS as readonly string[]).includes(event)) return null;
  const name = event as DhcpEventName;
  if (name !== 'bound' && name !== 'renew') return { event: name, lease: null };
  const lease = leaseFrom(raw, now);
  return lease ? { event: name, lease } : null;
}

function leaseFrom(raw: Record<string, unknown>, now: Date): DhcpEvent['lease'] {
  const ip = text(raw.ip);
  const mask = Number(text(raw.mask) || '24');
  if (!isIPv4(ip) || !Number.isInteger(mask) || mask < 1 || mask > 32) return null;
  const routers = addresses(raw.router);
  const leaseSeconds = /^\d{1,10}$/.test(text(raw.lease)) ? Number(text(raw.lease)) : null;
  return {
    address: `${ip}/${mask}`,
    gateway: routers[0] ?? null,
    dns: addresses(raw.dns),
    lease_expires_at: leaseSeconds === null ? null : new Date(now.getTime() + leaseSeconds * 1000).toISOString(),
  };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

/** A space-separated list of IPv4 addresses (udhcpc's form); anything else is left out. */
function addresses(value: unknown): string[] {
  return text(value)
    .split(/\s+/)
    .filter((item) => isIPv4(item));
}

/** The address without its prefix length. */
export function hostAddress(cidr: string): string {
  return cidr.split('/')[0];
}
