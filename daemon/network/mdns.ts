/**
 * mDNS with @homebridge/ciao (RFC 6762/6763 responder, the one Homebridge ships): `<hostname>.local`
 * answers with the address of the interface the query came in on, and the dashboard is announced
 * as an `_http._tcp` service. ciao notices address changes only by polling every 15 s, so on a
 * change the responder is shut down (goodbye packets) and started again (probe and announce).
 */
import { networkInterfaces } from 'node:os';
import ciao, { type CiaoService, type Responder } from '@homebridge/ciao';
import type { Logger } from '../log/logger.js';
import type { PartReporter } from './problems.js';

export interface MdnsOptions {
  hostname: string;
  /** The instance title: the service's name. */
  title: string;
  httpPort: number;
  interfaces: string[];
  log: Logger;
  report: PartReporter;
  /** Coalesces bursts of address changes into one re-announcement. */
  debounceMs?: number;
}

export class MdnsAnnouncer {
  private responder: Responder | null = null;
  private service: CiaoService | null = null;
  private timer: NodeJS.Timeout | null = null;
  private work: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Moves on every withdraw(): an announcement begun before it must not finish as if current. */
  private generation = 0;

  constructor(private readonly options: MdnsOptions) {}

  /** Announces on the interfaces that have an IPv4 address now; call again on every change. */
  refresh(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.work = this.work.then(() => this.restart()).catch((error) => this.failed(error));
    }, this.options.debounceMs ?? 200);
  }

  /**
   * Says goodbye at once, while the addresses still exist (an interface without its address can
   * send nothing); a refresh() after the change announces what is left.
   */
  async withdraw(): Promise<void> {
    // Not queued behind an announcement under way (probing takes about a second): the station's
    // release, and so a rejoin, would wait for it. That announcement is cut short instead.
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.generation++;
    const goodbye = this.shutdown().catch((error) => this.failed(error));
    this.work = this.work.then(() => goodbye);
    await goodbye;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.work;
    await this.shutdown();
  }

  /** The configured interfaces that have an IPv4 address. */
  private addressed(): Array<{ iface: string; address: string }> {
    const all = networkInterfaces();
    return this.options.interfaces.flatMap((iface) =>
      (all[iface] ?? []).filter((entry) => entry.family === 'IPv4').map((entry) => ({ iface, address: entry.address })),
    );
  }

  private async restart(): Promise<void> {
    const generation = this.generation;
    await this.shutdown();
    const { hostname, title, httpPort, log, report } = this.options;
    const addressed = this.addressed();
    if (this.stopped) return;
    if (addressed.length === 0) {
      report({ state: 'idle', detail: 'no interface has an address to announce' });
      return;
    }
    const interfaces = [...new Set(addressed.map((entry) => entry.iface))];
    const responder = ciao.getResponder({ interface: interfaces, disableIpv6: true });
    const service = responder.createService({
      name: title,
      type: 'http',
      port: httpPort,
      hostname,
      txt: { path: '/dashboard' },
      restrictedAddresses: interfaces,
      disabledIpv6: true,
    });
    this.responder = responder;
    this.service = service;
    try {
      await service.advertise();
    } catch (error) {
      if (generation !== this.generation) return;
      throw error;
    }
    if (generation !== this.generation) return;
    const names = `${hostname}.local → ${addressed.map((entry) => `${entry.address} (${entry.iface})`).join(', ')}`;
    log.info('mDNS announced', { host: `${hostname}.local`, addresses: addressed, service: service.getFQDN() });
    report({ state: 'ok', detail: names });
  }

  private async shutdown(): Promise<void> {
    const responder = this.responder;
    const service = this.service;
    this.responder = null;
    this.service = null;
    if (service) await service.end().catch(() => undefined);
    if (responder) await responder.shutdown().catch(() => undefined);
  }

  private failed(error: unknown): void {
    const reason = `mDNS not announced: ${(error as Error).message}`;
    this.options.log.warn(reason, { error });
    this.options.report({ state: 'fault', detail: reason });
    if (!this.stopped) this.timer = setTimeout(() => this.refresh(), 5000);
  }
}
