/**
 * Port forwarding on the home router, asked through @achingbrain/nat-port-mapper: UPnP IGD first
 * (found by the box's own SSDP search, ssdp-search.ts), NAT-PMP to the default gateway when no IGD
 * answers. Every call maps the ports
 * again (the router may have rebooted and forgotten them) and reads the external address; a router
 * that refuses says why in words.
 */
import type { Gateway } from '@achingbrain/nat-port-mapper';
import { isBehindAnotherNat } from './addresses.js';
import { searchIgd } from './ssdp-search.js';

export interface PortPair {
  external: number;
  internal: number;
}

export interface MappingResult {
  method: 'upnp' | 'nat-pmp';
  externalAddress: string;
}

export class MappingRefused extends Error {
  constructor(
    message: string,
    /** The external address, when the router told it although it would not forward. */
    readonly externalAddress: string | null = null,
  ) {
    super(message);
    this.name = 'MappingRefused';
  }
}

const DISCOVERY_MS = 4000;
const REQUEST_MS = 8000;
const DESCRIPTION = 'Nestbox';
/** UPnP leases below an hour are raised to one by the library; NAT-PMP takes seconds. */
const LEASE_S = 3600;

type MapperModule = typeof import('@achingbrain/nat-port-mapper');

export class PortMapper {
  private gateway: { gateway: Gateway; method: MappingResult['method'] } | null = null;
  private mapped: PortPair[] = [];
  private module: MapperModule | null = null;

  /**
   * Maps each pair to `internalAddress` and returns the external address; throws MappingRefused
   * with the reason when the router will not (or cannot usefully) forward.
   */
  async map(internalAddress: string, gatewayAddress: string | null, ports: PortPair[]): Promise<MappingResult> {
    const known = this.gateway !== null;
    try {
      return await this.mapOnce(internalAddress, gatewayAddress, ports);
    } catch (error) {
      // The router known from before may have gone (rebooted, feature turned off): look for it again.
      if (!known) throw error;
      this.gateway = null;
      return this.mapOnce(internalAddress, gatewayAddress, ports);
    }
  }

  private async mapOnce(
    internalAddress: string,
    gatewayAddress: string | null,
    ports: PortPair[],
  ): Promise<MappingResult> {
    const found = await this.findGateway(internalAddress, gatewayAddress);
    const { gateway, method } = found;
    const external = await gateway.externalIp({ signal: AbortSignal.timeout(REQUEST_MS) }).catch(() => null);
    // miniupnpd (and routers built on it) report no address when their own is private or reserved.
    if (external === '' || external === '0.0.0.0')
      throw new MappingRefused(
        "the router reports no public internet address of its own (its WAN address is private): another NAT, your provider's carrier-grade NAT or a second router, stands in front of it, so forwarding on this router cannot make the box reachable",
      );
    if (external && isBehindAnotherNat(external))
      throw new MappingRefused(
        `the router's own internet address is ${external}, a private or carrier-grade NAT address: another NAT (your provider's, or a second router) stands in front of it, so forwarding on this router cannot make the box reachable`,
        external,
      );
    try {
      for (const pair of ports) {
        await gateway.map(pair.internal, internalAddress, {
          externalPort: pair.external,
          protocol: 'TCP',
          description: DESCRIPTION,
          ttl: method === 'upnp' ? LEASE_S * 1000 : LEASE_S,
          autoRefresh: false,
          signal: AbortSignal.timeout(REQUEST_MS),
        });
      }
    } catch (error) {
      this.gateway = null;
      throw new MappingRefused(`the router refused to forward the ports (${describeRouterError(error)})`, external);
    }
    this.mapped = ports;
    if (!external)
      throw new MappingRefused('the router forwarded the ports but did not tell its internet address', null);
    return { method, externalAddress: external };
  }

  /** Removes the mappings this box made (on stop, and when the owner turns reachability off). */
  async unmapAll(): Promise<void> {
    const current = this.gateway;
    const ports = this.mapped;
    this.mapped = [];
    this.gateway = null;
    if (!current) return;
    for (const pair of ports) {
      await current.gateway.unmap(pair.internal, { signal: AbortSignal.timeout(REQUEST_MS) }).catch(() => undefined);
    }
  }

  private async findGateway(
    internalAddress: string,
    gatewayAddress: string | null,
  ): Promise<NonNullable<PortMapper['gateway']>> {
    if (this.gateway) return this.gateway;
    this.module ??= await import('@achingbrain/nat-port-mapper');
    const upnp = this.module.upnpNat({ autoRefresh: false, description: DESCRIPTION });
    const location = await searchIgd(internalAddress, DISCOVERY_MS);
    if (location) {
      try {
        const gateway = await upnp.getGateway(new URL(location), { signal: AbortSignal.timeout(REQUEST_MS) });
        this.gateway = { gateway, method: 'upnp' };
        return this.gateway;
      } catch {
        // A description that does not load or is not an IGDv2: try NAT-PMP.
      }
    }
    if (gatewayAddress) {
      const pmp = this.module.pmpNat(gatewayAddress, { autoRefresh: false, description: DESCRIPTION });
      try {
        await pmp.externalIp({ signal: AbortSignal.timeout(REQUEST_MS) });
        this.gateway = { gateway: pmp, method: 'nat-pmp' };
        return this.gateway;
      } catch {
        await pmp.stop().catch(() => undefined);
      }
    }
    throw new MappingRefused(
      'the router answers neither UPnP nor NAT-PMP: port forwarding by the box is turned off on the router (or it cannot do it)',
    );
  }
}

function describeRouterError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  if (/718|ConflictInMappingEntry/i.test(text)) return 'the port is already forwarded to another device';
  if (/606|Action not authorized/i.test(text)) return 'the router does not allow it';
  if (/timeout|aborted/i.test(text)) return 'the router did not answer in time';
  return text.slice(0, 200);
}
