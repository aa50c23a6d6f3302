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

export interface PublicNameOptions {
  http: HttpGetOptions;
  dns: PeerDnsOptions;
  /** Resolves an RFC 2136 server given by name (the lease's DNS servers). */
  lookup?: LookupFunction;
  now?: () => number;
}

export class PublicName {
  private published: string | null = null;
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

  /** The DNS step: updates the record when needed, then checks where the name points. */
  async step(name: string, address: string | null, dyndns: DynDnsSettings | null): Promise<Step> {
    if (dyndns?.protocol === 'rfc2136') this.clientFor(dyndns);
    else this.rfc2136 = null;
    if (!address) return { state: 'pending', detail: 'waiting for the external address' };
    if (dyndns) {
      const update = await this.update(name, address, dyndns);
      if (update) return update;
    }
    return this.verify(name, address, dyndns !== null);
  }

  private async update(name: string, address: string, dyndns: DynDnsSettings): Promise<Step | null> {
    if (this.published === address) return null;
    if (this.refusedFor === address)
      return {
        state: 'failed',
        detail: `${this.lastOutcome?.detail ?? 'refused'}: fix the settings and save them again`,
      };
    if (!this.backoff.due())
      return { state: 'failed', detail: `${this.lastOutcome?.detail ?? 'update failed'}; trying again shortly` };
    const outcome =
      dyndns.protocol === 'rfc2136'
        ? await this.clientFor(dyndns).publishAddress(name, address)
        : await dyndns2Update(dyndns, name, address, this.options.http);
    this.lastOutcome = outcome;
    if (outcome.ok) {
      this.published = address;
      this.updates += 1;
      this.backoff.reset();
      return null;
    }
    if (outcome.permanent) this.refusedFor = address;
    else this.backoff.failed();
    return { state: 'failed', detail: outcome.detail };
  }

  private async verify(name: string, address: string, updated: boolean): Promise<Step> {
    let addresses: string[];
    try {
      addresses = (await resolvePeerHost(name, this.options.dns, 4)).map((entry) => entry.address);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        state: 'failed',
        detail:
          code === 'ENOTFOUND' || code === 'ENODATA'
            ? `${name} does not resolve yet${updated ? '' : `: point it (an A record) at ${address}`}`
            : `${name} could not be looked up (${code ?? (error as Error).message})`,
      };
    }
    if (addresses.includes(address))
      return {
        state: 'ok',
        detail: `${name} points to ${address}${updated && this.lastOutcome ? ` (${this.lastOutcome.detail})` : ''}`,
      };
    return {
      state: 'failed',
      detail: `${name} points to ${addresses.join(', ')}, not to the box's external address ${address}${updated ? ' (the provider may still be updating)' : ''}`,
    };
  }
}

export type { DnsUpdateOutcome };
