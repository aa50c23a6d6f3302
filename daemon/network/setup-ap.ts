/**
 * The setup AP's interface (ethap0), following DeviceState `softap.active`: when the soft AP is up
 * the interface gets the chip's soft-AP MAC (the driver registers it with none, and the kernel will
 * not bring it up so) and the setup address, the captive DNS binds it, the portal listens on its
 * port 80 (when the main server does not already cover it) and dnsmasq hands out leases; when the
 * AP stops all of it stops and the address is flushed. When the driver re-creates the interface (a
 * chip reboot) all of it is set up again on the new one. A step that fails is retried with backoff.
 */
import { mkdir } from 'node:fs/promises';
import type { CaptiveDns } from '../connectivity/captive-dns.js';
import type { DeviceState } from '../device/state.js';
import type { Logger } from '../log/logger.js';
import type { LinkChange } from './interface-watch.js';
import { IpError, type IpTool } from './ip.js';
import { setupDhcpServer } from './dhcp-server.js';
import type { PartReporter } from './problems.js';
import type { Supervised } from './supervisor.js';

export type ExtraListener = (host: string, port: number) => Promise<{ stop: () => Promise<void> }>;

export interface SetupApOptions {
  iface: string;
  address: string;
  prefixLength: number;
  stateDir: string;
  device: DeviceState;
  ip: IpTool;
  dns: CaptiveDns;
  /** Opens the portal on port 80 of the setup address; null when the main server covers it. */
  portalListener: ExtraListener | null;
  log: Logger;
  report: PartReporter;
  dnsmasq?: string;
  /** Called when the setup address comes or goes (mDNS re-announces). */
  addressChanged?: () => void;
  /** Called before the setup address goes (mDNS says goodbye while it still can). */
  addressGoing?: () => Promise<void>;
  retryMinMs?: number;
}

export class SetupApInterface {
  private wanted = false;
  private up = false;
  private server: Supervised | null = null;
  private portal: { stop: () => Promise<void> } | null = null;
  private work: Promise<void> = Promise.resolve();
  private retryTimer: NodeJS.Timeout | null = null;
  private retryMs: number;
  /** The chip's soft-AP MAC, once it has said it. */
  private mac: string | null = null;
  /** The index of the interface set up: another one is a re-created interface. */
  private appliedIfindex: number | null = null;
  private readonly onChange = ({ paths }: { paths: string[] }) => {
    if (paths.includes('softap.active')) this.follow();
  };

  constructor(private readonly options: SetupApOptions) {
    this.retryMs = options.retryMinMs ?? 1000;
  }

  get cidr(): string {
    return `${this.options.address}/${this.options.prefixLength}`;
  }

  start(): void {
    this.options.device.on('change', this.onChange);
    this.options.report({ state: 'idle', detail: 'the setup AP is off' });
    this.follow();
  }

  async stop(): Promise<void> {
    this.options.device.off('change', this.onChange);
    this.wanted = false;
    this.clearRetry();
    this.queue(() => this.takeDown());
    await this.work;
  }

  /** The chip's soft-AP MAC (after each chip initialisation); an interface up without it is set up again. */
  chipMac(mac: string | null): void {
    this.mac = mac;
    if (!mac) return;
    this.queue(async () => {
      if (!this.wanted) return;
      if (this.appliedIfindex === null) {
        // Waiting for this MAC: no need to wait for the retry too.
        if (!this.up && this.retryTimer) {
          this.clearRetry();
          await this.bringUp();
        }
        return;
      }
      const link = await this.options.ip.link(this.options.iface).catch(() => null);
      if (link && link.ifindex === this.appliedIfindex && link.mac === mac.toLowerCase()) return;
      await this.replaced(link !== null);
    });
  }

  /** The driver deleted the interface, or one with a new index appeared under its name (a chip reboot). */
  linkChanged({ ifindex, present }: LinkChange): void {
    if (!this.wanted) return;
    this.queue(async () => {
      if (!this.wanted || (present ? ifindex === this.appliedIfindex : ifindex !== this.appliedIfindex)) return;
      await this.replaced(present);
    });
  }

  private async replaced(present: boolean): Promise<void> {
    const { iface, log, report } = this.options;
    this.clearRetry();
    await this.takeDown(false);
    log.info(present ? 'setup AP interface re-created; setting it up again' : 'setup AP interface deleted', { iface });
    if (!present) {
      report({ state: 'waiting', detail: `${iface} was deleted by the driver (coprocessor reboot); waiting for it` });
      return;
    }
    this.retryMs = this.options.retryMinMs ?? 1000;
    await this.bringUp();
  }

  private follow(): void {
    const active = this.options.device.get().softap.active;
    if (active === this.wanted) return;
    this.wanted = active;
    this.clearRetry();
    this.retryMs = this.options.retryMinMs ?? 1000;
    this.queue(() => (active ? this.bringUp() : this.takeDown()));
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private queue(step: () => Promise<void>): void {
    this.work = this.work
      .then(step)
      .catch((error) => this.options.log.warn('setup AP interface step failed', { error }));
  }

  private async bringUp(): Promise<void> {
    if (!this.wanted || this.up) return;
    const { iface, ip, dns, log, report, address } = this.options;
    try {
      if (!(await ip.exists(iface)))
        throw new IpError(
          `the soft-AP interface ${iface} does not exist (is the ESP-Hosted driver loaded?)`,
          true,
          false,
        );
      if (!this.mac) throw new Error("waiting for the soft AP's MAC from the coprocessor");
      this.appliedIfindex = await ip.setMacAndUp(iface, this.mac);
      await ip.addAddress(iface, this.cidr);
      await dns.start();
      if (this.options.portalListener && !this.portal) this.portal = await this.options.portalListener(address, 80);
      await mkdir(this.options.stateDir, { recursive: true });
    } catch (error) {
      const reason = describe(error, address);
      log.warn('setup AP interface not ready; trying again', { iface, reason, retry_ms: this.retryMs });
      report({ state: 'fault', detail: reason });
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.queue(() => this.bringUp());
      }, this.retryMs);
      this.retryMs = Math.min(30_000, this.retryMs * 2);
      return;
    }
    this.up = true;
    this.startServer();
    log.info('setup AP interface up', { iface, address: this.cidr, portal: `http://${address}/setup` });
    report({ state: 'ok', detail: `${this.cidr} on ${iface}, handing out leases` });
    this.options.addressChanged?.();
  }

  private startServer(): void {
    const { iface, address, prefixLength, stateDir, log, report } = this.options;
    const server = setupDhcpServer({ iface, address, prefixLength, stateDir, log, dnsmasq: this.options.dnsmasq });
    server.on('problem', (problem) =>
      report(
        problem
          ? { state: 'fault', detail: `phones get no address: ${problem}` }
          : { state: 'ok', detail: `${this.cidr} on ${iface}, handing out leases` },
      ),
    );
    this.server = server;
    server.start();
  }

  private async takeDown(report = true): Promise<void> {
    const { iface, ip, dns, log } = this.options;
    this.appliedIfindex = null;
    if (this.up) await this.options.addressGoing?.();
    const server = this.server;
    this.server = null;
    await server?.stop();
    const portal = this.portal;
    this.portal = null;
    await portal?.stop();
    await dns.stop();
    const wasUp = this.up;
    this.up = false;
    await ip.flushAddresses(iface).catch((error) => log.debug('setup AP flush', { error: (error as Error).message }));
    if (wasUp) {
      log.info('setup AP interface down', { iface });
      this.options.addressChanged?.();
    }
    if (report) this.options.report({ state: 'idle', detail: 'the setup AP is off' });
  }
}

function describe(error: unknown, address: string): string {
  const failure = error as NodeJS.ErrnoException;
  if (failure.code === 'EADDRINUSE')
    return `port ${(failure as { port?: number }).port ?? ''} on ${address} is taken by another program`;
  if (failure.code === 'EACCES') return `not allowed to listen on ${address} (CAP_NET_BIND_SERVICE missing)`;
  return failure.message;
}
