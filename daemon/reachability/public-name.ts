/**
 * Keeping the public name on the external address: the dynamic-DNS update (dyndns2)
 * only when the address changed since the last accepted update, with backoff after errors and no
 * retry of a permanent refusal until the settings or the address change; then a lookup through
 * the lease's DNS servers says whether the name really points at the box.
 */
import type { DynDnsSettings, Step } from './model.js';
import { dyndns2Update, type DnsUpdateOutcome } from './dyndns2.js';
import type { HttpGetOptions } from './http-get.js';
import { resolvePeerHost, type PeerDnsOptions } from '../social/federation/net/dns.js';
import { Backoff } from './backoff.js';

export interface PublicNameOptions {
  http: HttpGetOptions;
  dns: PeerDnsOptions;
  now?: () => number;
}

export class PublicName {
  private published: string | null = null;
  private refusedFor: string | null = null;
  private lastOutcome: DnsUpdateOutcome | null = null;
  private readonly backoff: Backoff;
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
    this.backoff.reset();
  }

  /** The DNS step: updates the record when needed, then checks where the name points. */
  async step(name: string, address: string | null, dyndns: DynDnsSettings | null): Promise<Step> {
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
    const outcome = await dyndns2Update(dyndns, name, address, this.options.http);
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
