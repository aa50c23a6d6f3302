/**
 * The setup AP's DHCP server: dnsmasq (Debian's dnsmasq-base) bound to the soft-AP interface only,
 * DHCP alone (port=0: the daemon's captive DNS answers names), handing phones leases with the box
 * as router and DNS and the RFC 8910 captive-portal URI (option 114), supervised by the daemon.
 */
import { userInfo } from 'node:os';
import type { Logger } from '../log/logger.js';
import { Supervised } from './supervisor.js';

export interface SetupDhcpOptions {
  iface: string;
  address: string;
  prefixLength: number;
  /** dnsmasq's lease and pid files live here. */
  stateDir: string;
  log: Logger;
  dnsmasq?: string;
}

/** Minutes a phone keeps its setup lease: setup takes minutes, and the AP goes away after. */
const LEASE_TIME = '15m';

function toInt(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

function toAddress(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** The pool inside the setup subnet, leaving out the box's own address and the subnet's ends. */
export function setupDhcpRange(address: string, prefixLength: number): { start: string; end: string; netmask: string } {
  const size = 2 ** (32 - prefixLength);
  const network = Math.floor(toInt(address) / size) * size;
  const own = toInt(address);
  // Small subnets use every host; larger ones leave room for fixed addresses at both ends.
  const margin = size >= 64 ? 10 : 1;
  let start = network + margin;
  let end = network + size - (size >= 64 ? 6 : 2);
  if (own === start) start += 1;
  if (own === end) end -= 1;
  const netmask = toAddress(2 ** 32 - size);
  return { start: toAddress(start), end: toAddress(end), netmask };
}

export function dnsmasqArgs(options: Omit<SetupDhcpOptions, 'log' | 'dnsmasq'>, user = userInfo().username): string[] {
  const { iface, address, prefixLength, stateDir } = options;
  const range = setupDhcpRange(address, prefixLength);
  return [
    '--conf-file=/dev/null', // never the system's /etc/dnsmasq.conf
    '--keep-in-foreground',
    '--log-facility=-', // stderr: the daemon logs it
    '--port=0', // no DNS: the captive DNS answers on the setup address
    `--interface=${iface}`,
    '--bind-interfaces',
    '--except-interface=lo',
    '--no-resolv',
    '--no-hosts',
    '--dhcp-authoritative',
    // The setup subnet is the box's alone (no fixed addresses to collide with): no ping-before-offer,
    // which would make every phone wait about 3 s for its address.
    '--no-ping',
    `--dhcp-range=${range.start},${range.end},${range.netmask},${LEASE_TIME}`,
    `--dhcp-option=option:router,${address}`,
    `--dhcp-option=option:dns-server,${address}`,
    // RFC 8910: the bare URI (quotes on this command line would travel inside the option).
    `--dhcp-option=114,http://${address}/setup`,
    `--dhcp-leasefile=${stateDir}/setup-ap.leases`,
    `--pid-file=${stateDir}/setup-ap-dnsmasq.pid`,
    // Started as root (tests), dnsmasq would switch to "nobody", who cannot write our lease file.
    ...(user === 'root' ? ['--user=root'] : []),
  ];
}

export function setupDhcpServer(options: SetupDhcpOptions): Supervised {
  return new Supervised({
    name: 'setup AP DHCP server (dnsmasq)',
    command: options.dnsmasq ?? 'dnsmasq',
    args: dnsmasqArgs(options),
    log: options.log,
    minRestartMs: 1000,
    healthyAfterMs: 1000,
  });
}
