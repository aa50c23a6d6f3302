/**
 * The driver's interfaces as the kernel reports them, through iproute2's `ip -o monitor link` run as
 * a supervised child (no netlink written by hand). ESP-Hosted deletes and registers ethsta0 and
 * ethap0 again on every boot of the chip (esp-hosted spi/esp_spi.c esp_spi_reinit_work:
 * esp_remove_card, esp_add_card; with SDIO the card goes and comes back), so a configured interface
 * can vanish and return under the same name with a new index, a zero MAC and no addresses. Each
 * deletion, and each first sight of a new index, of a watched name is told as `link`.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from '../log/logger.js';
import { Supervised } from './supervisor.js';

export interface LinkChange {
  iface: string;
  ifindex: number;
  /** false: this index was deleted; true: an interface with this index appeared. */
  present: boolean;
}

/** One line of `ip -o monitor link`: `[Deleted ]<index>: <name>[@peer]: <FLAGS> ...`. */
export function parseLinkLine(line: string): LinkChange | null {
  const match = /^(Deleted )?(\d+): ([^:@\s]+)(?:@[^:\s]*)?: </.exec(line.trim());
  if (!match) return null;
  return { iface: match[3], ifindex: Number(match[2]), present: !match[1] };
}

export interface InterfaceWatchOptions {
  interfaces: string[];
  log: Logger;
  /** iproute2's `ip`. */
  ip?: string;
}

export class InterfaceWatch extends EventEmitter<{ link: [LinkChange]; problem: [string | null] }> {
  private readonly seen = new Map<string, number | null>();
  private readonly monitor: Supervised;

  constructor(private readonly options: InterfaceWatchOptions) {
    super();
    this.monitor = new Supervised({
      name: 'interface monitor (ip monitor link)',
      command: options.ip ?? 'ip',
      args: ['-o', 'monitor', 'link'],
      log: options.log,
      minRestartMs: 1000,
    });
    this.monitor.on('line', (line) => this.onLine(line));
    this.monitor.on('problem', (problem) => this.emit('problem', problem));
  }

  start(): void {
    this.monitor.start();
  }

  async stop(): Promise<void> {
    await this.monitor.stop();
  }

  private onLine(line: string): void {
    const change = parseLinkLine(line);
    if (!change || !this.options.interfaces.includes(change.iface)) return;
    const last = this.seen.get(change.iface);
    if (change.present) {
      // Flag and address changes repeat the index: only a new one is news.
      if (last === change.ifindex) return;
      this.seen.set(change.iface, change.ifindex);
    } else {
      if (last === null) return;
      this.seen.set(change.iface, null);
    }
    this.options.log.info(change.present ? 'interface appeared' : 'interface deleted', {
      iface: change.iface,
      ifindex: change.ifindex,
    });
    this.emit('link', change);
  }
}
