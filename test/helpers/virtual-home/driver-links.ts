/**
 * The ESP-Hosted driver's two interfaces as the box sees them, played with veths, and the radio
 * that decides which frames cross them. What the real driver does (esp-hosted
 * `esp_hosted_fg/host/linux/host_driver/esp32/`):
 * - `esp_add_card` / `esp_add_interface` (main.c) register `ethsta0` and `ethap0` with the MAC of a
 *   zeroed private struct: 00:00:00:00:00:00. Their `ndo_validate_addr` (eth_validate_addr) makes
 *   the kernel refuse `ip link set up` until `esp_set_mac_address` has been given a valid MAC.
 * - Nothing in the driver ever calls netif_carrier_off: the carrier is on from registration, whatever
 *   the radio does. Frames to and from the air pass only while the chip is associated (station) or
 *   its soft AP is up, and the radio sends and takes them under the chip's own MAC.
 * - On every boot of the chip after the first, its init event (`process_init_event`, spi/esp_spi.c)
 *   schedules `esp_spi_reinit_work`: `esp_remove_card` unregisters both interfaces and
 *   `esp_add_card` registers them again: new interface indexes, zero MACs, no addresses, and any
 *   DHCP client or server on them has lost its interface.
 *
 * A veth cannot hold an all-zero MAC (the kernel refuses it when the veth is made), so each box end
 * is made with the kernel's random locally administered MAC, never the chip's. The refusal is
 * played where its consequence shows: the far end's radio gate (nftables, netdev ingress and
 * egress hooks in the home and air namespaces; the box's own namespace is left to the daemon) lets
 * frames from the box through only under the chip's MAC, and only while the radio carries. A box
 * that brings an interface up without the chip's MAC gets no frame through, as a real box would
 * get no interface up at all: either way no DHCP, no portal. The far ends stay up, so the box's
 * carrier is always on.
 */
import { spawn } from 'node:child_process';
import { ip } from './netns.js';

export const BOX_IFACES = { station: 'ethsta0', ap: 'ethap0' } as const;
/** The far ends: the station's in the home (a port of the router's bridge), the soft AP's in the air. */
export const FAR_ENDS = { station: 'sta0', ap: 'ap0' } as const;
/** The home router's bridge (its address and dnsmasq live on it, so they outlive the box's veths). */
export const HOME_BRIDGE = 'lan0';
export const AIR_BRIDGE = 'br0';

/** One radio path: open (the chip associated / its soft AP up) and the chip's MAC on it. */
export interface RadioPath {
  open: boolean;
  mac: string | null;
}

export interface DriverLinkNames {
  box: string;
  home: string;
  air: string;
}

export class DriverLinks {
  private station: RadioPath = { open: false, mac: null };
  private softAp: RadioPath = { open: false, mac: null };

  constructor(private readonly names: DriverLinkNames) {}

  /** Both bridges and both interfaces, the radio closed. */
  async build(): Promise<void> {
    const { home, air } = this.names;
    await ip('-n', home, 'link', 'add', HOME_BRIDGE, 'type', 'bridge');
    await ip('-n', home, 'link', 'set', HOME_BRIDGE, 'up');
    await ip('-n', air, 'link', 'add', AIR_BRIDGE, 'type', 'bridge');
    await ip('-n', air, 'link', 'set', AIR_BRIDGE, 'up');
    await this.addInterfaces();
  }

  /** The chip booted again: both interfaces unregistered and registered anew (esp_spi_reinit_work). */
  async recreate(): Promise<{ station: number; ap: number }> {
    const { box } = this.names;
    // Deleting the box end deletes its pair; the bridges, the router's address and dnsmasq stay.
    for (const iface of Object.values(BOX_IFACES)) await ip('-n', box, 'link', 'del', iface);
    await this.addInterfaces();
    return { station: await this.ifindex(BOX_IFACES.station), ap: await this.ifindex(BOX_IFACES.ap) };
  }

  /** The radio opens or closes a path; the chip's MAC on it, when given, replaces the last one. */
  async setStation(path: Partial<RadioPath>): Promise<void> {
    this.station = { ...this.station, ...path };
    await this.gate(this.names.home, FAR_ENDS.station, this.station);
  }

  async setSoftAp(path: Partial<RadioPath>): Promise<void> {
    this.softAp = { ...this.softAp, ...path };
    await this.gate(this.names.air, FAR_ENDS.ap, this.softAp);
  }

  get radio(): { station: RadioPath; softAp: RadioPath } {
    return { station: { ...this.station }, softAp: { ...this.softAp } };
  }

  /** The box end's index and MAC, as `ip -o link` shows them. */
  async boxLink(iface: string): Promise<{ ifindex: number; mac: string; up: boolean; carrier: boolean }> {
    const line = await ip('-n', this.names.box, '-o', 'link', 'show', 'dev', iface);
    const flags = /<([^>]*)>/.exec(line)?.[1].split(',') ?? [];
    return {
      ifindex: Number(/^(\d+):/.exec(line)?.[1]),
      mac: /link\/ether ([0-9a-f:]{17})/.exec(line)?.[1] ?? '',
      up: flags.includes('UP'),
      carrier: flags.includes('LOWER_UP'),
    };
  }

  private async ifindex(iface: string): Promise<number> {
    return (await this.boxLink(iface)).ifindex;
  }

  private async addInterfaces(): Promise<void> {
    const { box, home, air } = this.names;
    // Made inside the namespaces: nothing of the host's own interfaces is touched or named.
    await ip(
      '-n',
      box,
      'link',
      'add',
      BOX_IFACES.station,
      'type',
      'veth',
      'peer',
      'name',
      FAR_ENDS.station,
      'netns',
      home,
    );
    await ip('-n', box, 'link', 'add', BOX_IFACES.ap, 'type', 'veth', 'peer', 'name', FAR_ENDS.ap, 'netns', air);
    await ip('-n', home, 'link', 'set', FAR_ENDS.station, 'master', HOME_BRIDGE, 'up');
    await ip('-n', air, 'link', 'set', FAR_ENDS.ap, 'master', AIR_BRIDGE, 'up');
    await this.gate(home, FAR_ENDS.station, this.station);
    await this.gate(air, FAR_ENDS.ap, this.softAp);
  }

  /** The far end's gate, replaced in one nftables transaction. */
  private async gate(namespace: string, device: string, path: RadioPath): Promise<void> {
    const fromBox = path.open && path.mac ? `    ether saddr ${path.mac.toLowerCase()} accept\n` : '';
    const script = `table netdev radio
delete table netdev radio
table netdev radio {
  chain from_box {
    type filter hook ingress device "${device}" priority 0; policy drop;
${fromBox}  }
  chain to_box {
    type filter hook egress device "${device}" priority 0; policy ${path.open ? 'accept' : 'drop'};
  }
}
`;
    await nft(namespace, script);
  }
}

/** `nft -f -` inside a namespace; rejects with nft's own message. */
function nft(namespace: string, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', namespace, 'nft', '-f', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`nft in ${namespace} (exit ${code}): ${stderr.trim()}`)),
    );
    child.stdin.end(script);
  });
}
