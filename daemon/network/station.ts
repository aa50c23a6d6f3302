/**
 * The station interface (ethsta0): when the connectivity runner says the station joined, the
 * interface gets the coprocessor's station MAC (the driver registers it with none, and the kernel
 * will not bring it up so), comes up, and a real DHCP client (busybox udhcpc) runs on it,
 * supervised. The client's event script applies the lease; this reads its events, writes
 * DeviceState.network and tells the runner when the lease comes and goes. On release the lease is
 * given back and the addresses flushed. When the driver re-creates the interface (a chip reboot),
 * the lease and the client went with the old one: the new one is set up the same way.
 */
import { EventEmitter } from 'node:events';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { DeviceState, NetworkLease } from '../device/state.js';
import type { Logger } from '../log/logger.js';
import type { StationNetwork } from '../connectivity/runner.js';
import { IpError, type IpTool } from './ip.js';
import type { LinkChange } from './interface-watch.js';
import { parseDhcpEvent, type DhcpEvent } from './lease.js';
import { Supervised } from './supervisor.js';
import type { PartReporter } from './problems.js';
import { installPath } from '../install-paths.js';

export const UDHCPC_SCRIPT = installPath('scripts', 'network', 'udhcpc-event');

export interface StationOptions {
  iface: string;
  hostname: string;
  device: DeviceState;
  ip: IpTool;
  log: Logger;
  report: PartReporter;
  /** The DHCP client binary; default `udhcpc` (Debian's udhcpc package), else `busybox udhcpc`. */
  udhcpc?: string;
  /** Called when the address changes (mDNS re-announces). */
  addressChanged?: () => void;
  /** Called before the address is given up (mDNS says goodbye while it still can). */
  addressGoing?: () => Promise<void>;
  retryMinMs?: number;
}

type LeaseListener = (lease: { up: boolean; reason?: string }) => void;

export class StationInterface extends EventEmitter<{ lease: Parameters<LeaseListener> }> implements StationNetwork {
  private wanted = false;
  private mac: string | null = null;
  private client: Supervised | null = null;
  private lease: NetworkLease | null = null;
  private work: Promise<void> = Promise.resolve();
  private retryTimer: NodeJS.Timeout | null = null;
  private retryMs: number;
  private joinedAt = 0;
  /** The index of the interface set up for this join: another one is a re-created interface. */
  private appliedIfindex: number | null = null;
  /** The DHCP server did not answer since the last lease: stays a fault across re-joins until one comes. */
  private unanswered = false;

  constructor(private readonly options: StationOptions) {
    super();
    this.retryMs = options.retryMinMs ?? 1000;
  }

  get currentLease(): NetworkLease | null {
    return this.lease;
  }

  associated(mac: string | null): void {
    this.wanted = true;
    this.mac = mac;
    this.joinedAt = Date.now();
    this.retryMs = this.options.retryMinMs ?? 1000;
    this.queue(() => this.bringUp());
  }

  released(): void {
    this.wanted = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.queue(() => this.takeDown());
  }

  /**
   * The driver deleted the interface, or an interface with a new index appeared under its name
   * (a chip reboot). Joined, whatever ran on the old one is dropped and the new one set up again.
   */
  linkChanged({ ifindex, present }: LinkChange): void {
    if (!this.wanted) return;
    this.queue(async () => {
      if (!this.wanted || (present ? ifindex === this.appliedIfindex : ifindex !== this.appliedIfindex)) return;
      await this.replaced(present);
    });
  }

  /** After a chip (re)initialisation: an interface that is not the one set up, or without the chip's MAC, is set up again. */
  verify(mac: string): void {
    this.queue(async () => {
      if (!this.wanted || this.appliedIfindex === null) return;
      const link = await this.options.ip.link(this.options.iface).catch(() => null);
      if (link && link.ifindex === this.appliedIfindex && link.mac === mac.toLowerCase()) return;
      this.mac = mac;
      await this.replaced(link !== null);
    });
  }

  /** Asks the DHCP client to renew now (SIGUSR1). */
  renew(): boolean {
    return this.client?.signal('SIGUSR1') ?? false;
  }

  async stop(): Promise<void> {
    this.released();
    await this.work;
  }

  private queue(step: () => Promise<void>): void {
    this.work = this.work
      .then(step)
      .catch((error) => this.options.log.warn('station interface step failed', { error }));
  }

  private async bringUp(retry = false): Promise<void> {
    if (!this.wanted || this.client) return;
    const { iface, ip, log, report } = this.options;
    // Reported here, not in associated(): a release queued before this join reports after it.
    if (!retry)
      report(
        this.unanswered
          ? { state: 'fault', detail: "no answer from the home network's DHCP server (joined again, still asking)" }
          : { state: 'waiting', detail: `joined; asking the home network for an address (DHCP on ${iface})` },
      );
    try {
      if (!(await ip.exists(iface)))
        throw new IpError(
          `the station interface ${iface} does not exist (is the ESP-Hosted driver loaded?)`,
          true,
          false,
        );
      this.appliedIfindex = await ip.setMacAndUp(iface, this.mac);
    } catch (error) {
      const reason = (error as Error).message;
      log.warn('station interface not ready; trying again', { iface, reason, retry_ms: this.retryMs });
      report({ state: 'fault', detail: reason });
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.queue(() => this.bringUp(true));
      }, this.retryMs);
      this.retryMs = Math.min(30_000, this.retryMs * 2);
      return;
    }
    log.info('station interface up; DHCP client starting', { iface, mac: this.mac });
    this.startClient();
  }

  private startClient(): void {
    const { iface, hostname, log } = this.options;
    const { command, prefix } = dhcpClientCommand(this.options.udhcpc);
    const client = new Supervised({
      name: 'DHCP client (udhcpc)',
      command,
      // Foreground, release on exit, our host name; discovers 1 s apart for 5 s (one exchange keeps
      // its transaction id, so a server that pings an address for 3 s before offering it is still
      // heard), then a 3 s pause, repeating.
      args: [
        ...prefix,
        '-f',
        '-R',
        '-i',
        iface,
        '-s',
        UDHCPC_SCRIPT,
        '-t',
        '5',
        '-T',
        '1',
        '-A',
        '3',
        '-x',
        `hostname:${hostname}`,
      ],
      log,
      minRestartMs: 1000,
    });
    // A client stopped for a re-created interface may still print its last events: not ours any more.
    client.on('line', (line) => {
      if (this.client === client) this.onClientLine(line);
    });
    client.on('problem', (problem) => {
      if (problem) this.options.report({ state: 'fault', detail: problem });
    });
    this.client = client;
    client.start();
  }

  private onClientLine(line: string): void {
    const event = parseDhcpEvent(line);
    if (!event) {
      this.options.log.debug('DHCP client output', { line: line.slice(0, 200) });
      return;
    }
    if (!this.wanted) return;
    this.onEvent(event);
  }

  private onEvent({ event, lease }: DhcpEvent): void {
    const { log, report, device, iface } = this.options;
    switch (event) {
      case 'bound':
      case 'renew': {
        const next: NetworkLease = { ...lease!, mac: this.mac };
        if (!next.gateway) {
          report({
            state: 'fault',
            detail: `the home network's DHCP server gave ${next.address} but no router: not online`,
          });
          log.warn('lease without a router: not online', { iface, address: next.address });
          return;
        }
        const had = this.lease;
        this.lease = next;
        this.unanswered = false;
        device.update({ network: next });
        report({ state: 'ok', detail: `${next.address} via ${next.gateway}` });
        if (!had || had.address !== next.address) {
          log.info('station address leased', {
            iface,
            address: next.address,
            gateway: next.gateway,
            dns: next.dns,
            lease_expires_at: next.lease_expires_at,
            ms_since_join: Date.now() - this.joinedAt,
          });
          this.options.addressChanged?.();
        }
        if (!had) this.emit('lease', { up: true });
        return;
      }
      case 'leasefail':
        this.unanswered = true;
        log.warn('no DHCP answer from the home network; the client keeps asking', { iface });
        report({ state: 'fault', detail: "no answer from the home network's DHCP server (still asking)" });
        return;
      case 'nak':
        log.warn("the home network's DHCP server refused the lease (NAK)", { iface });
        return;
      case 'deconfig':
        if (!this.lease) return;
        this.dropLease('lease not renewed');
        return;
    }
  }

  private dropLease(reason: string): void {
    const lost = this.lease;
    this.lease = null;
    this.options.device.update({ network: null });
    this.options.log.warn('station address lost', { iface: this.options.iface, address: lost?.address, reason });
    this.options.report({ state: 'fault', detail: `lost the address ${lost?.address ?? ''} (${reason})` });
    this.options.addressChanged?.();
    this.emit('lease', { up: false, reason });
  }

  /** The interface went (or came back new) under the lease: drop what ran on the old one, then set up the new one. */
  private async replaced(present: boolean): Promise<void> {
    const { iface, log, report } = this.options;
    const client = this.client;
    this.client = null;
    this.appliedIfindex = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.lease) this.dropLease('the driver re-created the interface (coprocessor reboot)');
    await client?.stop();
    log.info(present ? 'station interface re-created; setting it up again' : 'station interface deleted', { iface });
    if (!present) {
      report({ state: 'waiting', detail: `${iface} was deleted by the driver (coprocessor reboot); waiting for it` });
      return;
    }
    this.retryMs = this.options.retryMinMs ?? 1000;
    await this.bringUp();
  }

  private async takeDown(): Promise<void> {
    const { iface, ip, log, report, device } = this.options;
    const client = this.client;
    this.client = null;
    this.appliedIfindex = null;
    if (this.lease) await this.options.addressGoing?.();
    // SIGTERM with -R: udhcpc sends DHCPRELEASE and runs deconfig (which flushes) before it exits.
    if (client) await client.stop();
    const had = this.lease;
    this.lease = null;
    device.update({ network: null });
    await ip.flushAddresses(iface).catch((error) => log.debug('station flush', { error: (error as Error).message }));
    if (had) {
      log.info('station lease released', { iface, address: had.address });
      this.options.addressChanged?.();
    }
    // A join dropped for want of an address stays a fault: the next join is the same network.
    report(
      this.unanswered
        ? { state: 'fault', detail: "the last join got no answer from the home network's DHCP server" }
        : { state: 'idle', detail: 'the station is not joined to a network' },
    );
  }
}

/** udhcpc as installed: its own name (Debian's udhcpc package) or as a busybox applet. */
function dhcpClientCommand(configured: string | undefined): { command: string; prefix: string[] } {
  if (configured) return { command: configured, prefix: [] };
  if (onPath('udhcpc')) return { command: 'udhcpc', prefix: [] };
  if (onPath('busybox')) return { command: 'busybox', prefix: ['udhcpc'] };
  return { command: 'udhcpc', prefix: [] };
}

/** Where spawn() will look for it: the directories of PATH, nowhere else. */
function onPath(name: string): boolean {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  return dirs.some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
