/**
 * What the reachability flow shows (the owner's API, DeviceState, MQTT) and what the owner gives
 * it. The view never carries a secret: the dynamic-DNS password and TSIG key stay in the settings.
 */
import type { TsigAlgorithm } from './tsig.js';

export const STEP_NAMES = ['dns', 'port_mapping', 'certificate', 'switch', 'check'] as const;
export type StepName = (typeof STEP_NAMES)[number];
export type StepState = 'pending' | 'working' | 'ok' | 'failed' | 'off';

export interface Step {
  state: StepState;
  /** Plain words for a person; never a secret. */
  detail: string | null;
}

/** The forwarding to set up by hand when the router will not do it. */
export interface ManualForwarding {
  internal_address: string;
  ports: Array<{ external: number; internal: number; protocol: 'TCP' }>;
}

/** Whether the internet reaches the box over each address family, in words. */
export interface FamilyReach {
  ipv4: Step;
  ipv6: Step;
}

export interface ReachabilityView {
  name: string | null;
  /** The router's external IPv4 address. */
  external_address: string | null;
  /** The box's own global IPv6 address (published as AAAA, the pinholes open to it); null without one. */
  ipv6_address: string | null;
  families: FamilyReach;
  /** How the port mapping was made: `upnp`, `nat-pmp`, or null. */
  mapping_method: string | null;
  steps: Record<StepName, Step>;
  certificate: { not_after: string } | null;
  /** The instance's public address once switched; null before. */
  public_url: string | null;
  /** Set when the router will not forward the ports itself. */
  manual: ManualForwarding | null;
  dyndns: { protocol: 'dyndns2' | 'rfc2136'; server: string } | null;
}

export interface Dyndns2Settings {
  protocol: 'dyndns2';
  url: string;
  username: string;
  password: string;
}

/** RFC 2136 DNS UPDATE signed with a TSIG key (the owner's own DNS server). */
export interface Rfc2136Settings {
  protocol: 'rfc2136';
  /** The primary server: a name or address, with `:port` when not 53. */
  server: string;
  zone: string;
  key_name: string;
  key_algorithm: TsigAlgorithm;
  /** base64, as in the server's key file. */
  key_secret: string;
}

export type DynDnsSettings = Dyndns2Settings | Rfc2136Settings;

/** What the owner gave (kept 0600 under the data directory). */
export interface ReachabilitySettings {
  name: string;
  dyndns: DynDnsSettings | null;
}

export function offSteps(detail: string | null = null): Record<StepName, Step> {
  return Object.fromEntries(STEP_NAMES.map((name) => [name, { state: 'off', detail }])) as Record<StepName, Step>;
}

export function initialView(): ReachabilityView {
  return {
    name: null,
    external_address: null,
    ipv6_address: null,
    families: { ipv4: { state: 'off', detail: null }, ipv6: { state: 'off', detail: null } },
    mapping_method: null,
    steps: offSteps(),
    certificate: null,
    public_url: null,
    manual: null,
    dyndns: null,
  };
}

export function dyndnsView(settings: DynDnsSettings | null): ReachabilityView['dyndns'] {
  if (!settings) return null;
  if (settings.protocol === 'rfc2136') return { protocol: 'rfc2136', server: settings.server };
  return { protocol: 'dyndns2', server: new URL(settings.url).host };
}
