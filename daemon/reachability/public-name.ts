/**
 * Keeping the public name on the external address: the dynamic-DNS update (dyndns2, or RFC 2136
 * with TSIG to the owner's own DNS server) only when the address changed since the last accepted update, with backoff after errors and no
 * retry of a permanent refusal until the settings or the address change; then a lookup through
 * the lease's DNS servers says whether the name really points at the box.
 */
import type { DynDnsSettings, Step } from './model.js';
import { dyndns2Update, type DnsUpdateOutcome } from './dyndns2.js';
import type { HttpGetOptions } from './http-get.js';
import { Rfc2136Client } from './rfc2136.js';
import type { LookupFunction } from 'node:net';
import { resolvePeerHost, type PeerDnsOptions } from '../social/federation/net/dns.js';
import { Backoff } from './backoff.js';
import { planRecords, type PublicAddresses, type RecordPlan } from './record-plan.js';

export interface PublicNameOptions {
  http: HttpGetOptions;
  dns: PeerDnsOptions;
  /** Resolves an RFC 2136 server given by name (the lease's DNS servers). */
  lookup?: LookupFunction;
  now?: () => number;
}

export class PublicName {
  private published: PublicAddresses | null = null;
  private refusedFor: string | null = null;
  private lastOutcome: DnsUpdateOutcome | null = null;
  private readonly backoff: Backoff;
  private rfc2136: { settings: DynDnsSettings; client: Rfc2136Client } | null = null;
  /** Accepted updates (figures for the owner and tests). */
  updates = 0;

  constructor(private readonly options: PublicNameOptions) {
    this.backoff = new Backoff(30_000, 30 * 60_000, options.now);
  }

  /** Forget what was published (new settings). */
  reset(): void {
    this.published = null;
    this.withdrawnIpv6 = null;
    this.refusedFor = null;
    this.lastOutcome = null;
    this.rfc2136 = null;
    this.backoff.reset();
  }

  /** The owner asks again: a refusal or a failure no longer holds back the next update. */
  retry(): void {
    this.refusedFor = null;
    this.backoff.reset();
  }

  /**
   * DNS-01's writer of `_acme-challenge.<name>` TXT records, when the last settings seen are RFC
   * 2136 (the owner's DNS takes updates); null otherwise, and the certificate uses HTTP-01.
   */
  dnsChallenge(): ((name: string, value: string | null) => Promise<void>) | null {
    const client = this.rfc2136?.client;
    if (!client) return null;
    return async (name, value) => {
      const record = `_acme-challenge.${name}`;
      await client.setTxt(record, value);
      // The CA asks the authoritative servers: the primary must already serve the value.
      if (value !== null && !(await client.query(record, 'TXT')).includes(value))
        throw new Error(`the DNS server ${client.server} accepted the challenge record but does not serve it`);
    };
  }

  private clientFor(settings: Extract<DynDnsSettings, { protocol: 'rfc2136' }>): Rfc2136Client {
    if (this.rfc2136?.settings !== settings)
      this.rfc2136 = { settings, client: new Rfc2136Client(settings, { lookup: this.options.lookup }) };
    return this.rfc2136.client;
  }

  /** Whether the name pointed at each family's address at the last check. */
  pointing = { ipv4: false, ipv6: false };
  /** The IPv6 address whose AAAA record the last accepted update removed, until one is published again. */
  withdrawnIpv6: string | null = null;

  /**
   * The DNS step: updates the records when needed, then checks where the name points. `address`
   * is the external IPv4 address, or both families' addresses (either may be null: an IPv4
   * address behind another NAT is not published; nor is an IPv6 address without a pinhole).
   */
  async step(name: string, address: string | null | PublicAddresses, dyndns: DynDnsSettings | null): Promise<Step> {
    const addresses = typeof address === 'object' && address !== null ? address : { ipv4: address, ipv6: null };
    this.pointing = { ipv4: false, ipv6: false };
    if (dyndns?.protocol === 'rfc2136') this.clientFor(dyndns);
    else this.rfc2136 = null;
    if (!addresses.ipv4 && !addresses.ipv6) return { state: 'pending', detail: 'waiting for the external address' };
    if (dyndns) {
      const update = await this.update(name, addresses, dyndns);
      if (update) return update;
    }
    return this.verify(name, addresses, dyndns !== null);
  }

  private async update(name: string, addresses: PublicAddresses, dyndns: DynDnsSettings): Promise<Step | null> {
    const plan = planRecords(this.published, addresses);
    if (!plan) return null;
    const key = JSON.stringify(plan);
    if (this.refusedFor === key)
      return {
        state: 'failed',
        detail: `${this.lastOutcome?.detail ?? 'refused'}: fix the settings and save them again`,
      };
    if (!this.backoff.due())
      return { state: 'failed', detail: `${this.lastOutcome?.detail ?? 'update failed'}; trying again shortly` };
    const outcome =
      dyndns.protocol === 'rfc2136'
        ? await this.publishEach(this.clientFor(dyndns), name, plan)
        : await dyndns2Update(
            dyndns,
            name,
            [addresses.ipv4, addresses.ipv6].filter((one): one is string => one !== null),
            this.options.http,
            plan.withdrawIpv6 !== null,
          );
    this.lastOutcome = outcome;
    if (outcome.ok) {
      this.published = plan.publish;
      if (plan.withdrawIpv6) this.withdrawnIpv6 = plan.withdrawIpv6;
      if (plan.publish.ipv6) this.withdrawnIpv6 = null;
      this.updates += 1;
      this.backoff.reset();
      return null;
    }
    if (outcome.permanent) this.refusedFor = key;
    else this.backoff.failed();
    return { state: 'failed', detail: outcome.detail };
  }

  /** RFC 2136: the A and the AAAA rrsets, one signed update each (a withdrawn AAAA deleted); the first refusal stops. */
  private async publishEach(client: Rfc2136Client, name: string, plan: RecordPlan) {
    let outcome: DnsUpdateOutcome = { ok: true, permanent: false, detail: '' };
    for (const address of [plan.publish.ipv4, plan.publish.ipv6]) {
      if (!address) continue;
      outcome = await client.publishAddress(name, address);
      if (!outcome.ok) return outcome;
    }
    if (plan.withdrawIpv6) outcome = await client.withdrawIpv6(name);
    return outcome;
  }

  private async verify(name: string, addresses: PublicAddresses, updated: boolean): Promise<Step> {
    const checks = (['ipv4', 'ipv6'] as const).filter((family) => addresses[family]);
    const words: string[] = [];
    for (const family of checks) {
      const address = addresses[family]!;
      const found = await this.lookup(name, family === 'ipv4' ? 4 : 6);
      if (typeof found === 'string') {
        const record = family === 'ipv4' ? 'an A record' : 'an AAAA record';
        return {
          state: 'failed',
          detail:
            found === 'missing'
              ? `${name} does not resolve${checks.length > 1 ? ` over ${family === 'ipv4' ? 'IPv4' : 'IPv6'}` : ''} yet${updated ? '' : `: point it (${record}) at ${address}`}`
              : `${name} could not be looked up (${found.slice('error: '.length)})`,
        };
      }
      if (!found.includes(address))
        return {
          state: 'failed',
          detail: `${name} points to ${found.join(', ')}, not to the box's ${family === 'ipv4' ? 'external address' : 'IPv6 address'} ${address}${updated ? ' (the provider may still be updating)' : ''}`,
        };
      this.pointing[family] = true;
      words.push(address);
    }
    return {
      state: 'ok',
      detail: `${name} points to ${words.join(' and ')}${updated && this.lastOutcome ? ` (${this.lastOutcome.detail})` : ''}`,
    };
  }

  /** The name's addresses of one family, 'missing', or 'error: <code>'. */
  private async lookup(name: string, family: 4 | 6): Promise<string[] | string> {
    try {
      return (await resolvePeerHost(name, this.options.dns, family)).map((entry) => entry.address);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOTFOUND' || code === 'ENODATA' ? 'missing' : `error: ${code ?? (error as Error).message}`;
    }
  }
}

export type { DnsUpdateOutcome, PublicAddresses };
