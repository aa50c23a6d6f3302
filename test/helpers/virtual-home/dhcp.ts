/**
 * The real DHCP parts of the virtual home: dnsmasq as a router's DHCP and DNS server, and busybox
 * udhcpc as a phone's (or any bare) DHCP client whose script configures the interface and reports
 * each lease as one JSON line.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnIn, type NsProcess } from './process.js';

export interface DhcpServerOptions {
  namespace: string;
  iface: string;
  /** The server's own address, e.g. 10.77.0.1 (router and DNS in the leases). */
  address: string;
  rangeStart: string;
  rangeEnd: string;
  netmask?: string;
  leaseTime?: string;
  dir: string;
  /** More dnsmasq options, e.g. `--dhcp-option=114,http://…` or `--address=/#/…`. */
  extra?: string[];
}

export interface DhcpServer {
  readonly process: NsProcess;
  stop(): Promise<void>;
}

/** dnsmasq in the foreground, logging to stderr, bound to one interface, with its own lease file. */
export async function startDhcpServer(options: DhcpServerOptions): Promise<DhcpServer> {
  const name = `${options.namespace}-${options.iface}`;
  const args = [
    '--keep-in-foreground',
    '--log-facility=-',
    '--conf-file=/dev/null',
    '--user=root',
    '--pid-file=',
    `--interface=${options.iface}`,
    '--bind-dynamic',
    '--no-resolv',
    '--no-hosts',
    `--dhcp-range=${options.rangeStart},${options.rangeEnd},${options.netmask ?? '255.255.255.0'},${options.leaseTime ?? '2m'}`,
    `--dhcp-option=option:router,${options.address}`,
    `--dhcp-option=option:dns-server,${options.address}`,
    '--dhcp-authoritative',
    // A router's ping of an address before offering it holds every lease back for seconds; the box's
    // handling of a lease does not depend on it.
    '--no-ping',
    `--dhcp-leasefile=${join(options.dir, `${name}.leases`)}`,
    ...(options.extra ?? []),
  ];
  return startDnsmasq(options.namespace, args);
}

/** dnsmasq with exactly these arguments (e.g. the daemon's own, for a bare exchange). */
export async function startDnsmasq(namespace: string, args: string[]): Promise<DhcpServer> {
  const process = spawnIn(namespace, 'dnsmasq', args);
  // dnsmasq says "started" once its sockets are open; a bad option ends it instead.
  await waitForStderr(process, /started, version/, 5000, `dnsmasq in ${namespace}`);
  return { process, stop: () => process.stop(2000) };
}

async function waitForStderr(process: NsProcess, pattern: RegExp, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let done = false;
  void process.exited.then(() => {
    done = true;
  });
  while (!pattern.test(process.stderr())) {
    if (done) throw new Error(`${what} exited: ${process.stderr().trim()}`);
    if (Date.now() > deadline)
      throw new Error(`${what} did not start within ${timeoutMs} ms: ${process.stderr().trim()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface Lease {
  event: 'bound' | 'renew';
  ip: string;
  /** Prefix length. */
  mask: number;
  router: string;
  dns: string[];
  leaseSeconds: number;
  /** DHCP option 114 (RFC 8910 captive-portal URI), as text; empty when absent. */
  captivePortal: string;
  /** When the lease was reported (performance.now() of the test process). */
  at: number;
}

const LEASE_PREFIX = 'LEASE ';

/**
 * The client's script: configures the address and default route as Debian's default script would,
 * writes the namespace's own resolv.conf (bind-mounted by `ip netns exec`), and prints the lease
 * (option 114 arrives hex-encoded in $opt114 since udhcpc has no name for it).
 */
const SCRIPT = `#!/bin/sh
case "$1" in
  deconfig)
    ip -4 addr flush dev "$interface" 2>/dev/null
    echo "NOLEASE {\\"event\\":\\"deconfig\\"}"
    ;;
  leasefail|nak)
    echo "NOLEASE {\\"event\\":\\"$1\\"}"
    ;;
  bound|renew)
    prefix=\${mask:-24}
    ip -4 addr flush dev "$interface"
    ip addr add "$ip/$prefix" dev "$interface"
    for gw in $router; do ip route replace default via "$gw" dev "$interface"; break; done
    : > /etc/resolv.conf
    for server in $dns; do echo "nameserver $server" >> /etc/resolv.conf; done
    portal=""
    [ -n "$opt114" ] && portal=$(printf '%s' "$opt114" | sed 's/\\(..\\)/\\\\x\\1/g' | xargs -0 printf '%b')
    echo "${LEASE_PREFIX}{\\"event\\":\\"$1\\",\\"ip\\":\\"$ip\\",\\"mask\\":$prefix,\\"router\\":\\"$router\\",\\"dns\\":\\"$dns\\",\\"lease\\":\\"$lease\\",\\"captivePortal\\":\\"$portal\\"}"
    ;;
esac
exit 0
`;

export function writeClientScript(dir: string): string {
  const path = join(dir, 'udhcpc.script');
  writeFileSync(path, SCRIPT);
  chmodSync(path, 0o755);
  return path;
}

export interface DhcpClient {
  readonly process: NsProcess;
  readonly leases: Lease[];
  /** The next lease after `after` (default: the first one). */
  waitForLease(timeoutMs: number, after?: number): Promise<Lease>;
  stop(): Promise<void>;
}

/** A phone's pace: a discover every second, without giving up. */
export const PHONE_RETRIES = ['-t', '1000', '-T', '1', '-A', '1'];

/**
 * busybox udhcpc in the foreground, asking for option 114 and releasing the lease when stopped;
 * `retries` sets its discover pace (-t/-T/-A).
 */
export function startDhcpClient(
  namespace: string,
  iface: string,
  script: string,
  retries: string[] = PHONE_RETRIES,
): DhcpClient {
  const process = spawnIn(namespace, 'busybox', [
    'udhcpc',
    '-f',
    '-R',
    '-i',
    iface,
    '-s',
    script,
    '-O',
    '114',
    ...retries,
  ]);
  const leases: Lease[] = [];
  const waiters = new Set<() => void>();
  process.onLine((line) => {
    if (!line.startsWith(LEASE_PREFIX)) return;
    const raw = JSON.parse(line.slice(LEASE_PREFIX.length)) as Record<string, string | number>;
    leases.push({
      event: raw.event as Lease['event'],
      ip: String(raw.ip),
      mask: Number(raw.mask),
      router: String(raw.router).split(' ')[0],
      dns: String(raw.dns).split(/\s+/).filter(Boolean),
      leaseSeconds: Number(raw.lease),
      captivePortal: String(raw.captivePortal),
      at: performance.now(),
    });
    for (const waiter of waiters) waiter();
  });
  return {
    process,
    leases,
    waitForLease(timeoutMs, after = 0) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const lease = leases.find((l) => l.at > after);
          if (!lease) return;
          finish();
          resolve(lease);
        };
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `no DHCP lease on ${iface} in ${namespace} within ${timeoutMs} ms (${process.stderr().trim().split('\n').slice(-3).join(' | ')})`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
        void process.exited.then((code) => {
          if (waiters.has(check)) {
            finish();
            reject(new Error(`udhcpc in ${namespace} exited (${code}): ${process.stderr().trim()}`));
          }
        });
      });
    },
    stop: () => process.stop(2000),
  };
}
