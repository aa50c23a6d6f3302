/**
 * The internet beside a virtual home (root only): the home router's namespace gains a WAN link,
 * NAT (nftables masquerade) and miniupnpd (UPnP IGD, NAT-PMP/PCP); an "inet" namespace holds the
 * public side: pebble (Let's Encrypt's test CA), pebble-challtestsrv as the public DNS, a dyndns2
 * provider in front of it, and whatever a test starts there (a second Nestbox, an agent).
 *
 *   box ── home router ══ wan0 ─── isp0 ══ inet
 *          (dnsmasq, NAT,              (pebble 11.77.1.14, DNS 11.77.1.53,
 *           miniupnpd)                   dyndns2 11.77.1.20:8081, peers)
 *
 * The public addresses come from 11.77.0.0/16: miniupnpd refuses to forward on a private or
 * reserved external address (documentation ranges included), and nothing leaves the namespaces.
 * With `ipv6`, the links carry IPv6 too (2001:db8::/32, the documentation prefix): the router
 * routes the home's /64 (and a ULA /64), advertised on the LAN by its dnsmasq (SLAAC), and its
 * firewall lets in only what miniupnpd's pinholes allow.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST } from '../paths.js';
import { NamespaceAgent } from '../virtual-home/agent-client.js';
import { startDhcpServer, type DhcpServer } from '../virtual-home/dhcp.js';
import { addNamespace, deleteNamespace, ip, namespaceName } from '../virtual-home/netns.js';
import { spawnIn, type NsProcess } from '../virtual-home/process.js';
import { HOME_NET, type VirtualHome } from '../virtual-home/index.js';
import { requirePackage } from '../system-packages.js';
import { makeTestCa } from './test-ca.js';
import { hexToIpv6 } from '../../../daemon/reachability/ipv6-address.js';
import { routerRuleset, miniupnpdConfig } from './router.js';
import { OWNER_DNS, startOwnerDns, type OwnerDns, type OwnerDnsOptions } from './owner-dns.js';

export const INTERNET = {
  isp: '11.77.0.1',
  wan: '11.77.0.2',
  dns: '11.77.1.53',
  acme: '11.77.1.14',
  dyndns: '11.77.1.20',
  peer: '11.77.1.30',
  carrierNat: { isp: '100.64.0.1', wan: '100.64.0.2' },
} as const;
/** The IPv6 plan (`ipv6: true`): the ISP link, the home's global /64 and its ULA /64. */
export const INTERNET6 = {
  isp: '2001:db8:ffff::1',
  wan: '2001:db8:ffff::2',
  homePrefix: '2001:db8:77:1::',
  router: '2001:db8:77:1::1',
  ulaPrefix: 'fd77:0:0:1::',
  ulaRouter: 'fd77:0:0:1::1',
} as const;
export const ACME_NAME = 'acme.example.test';
export const DYNDNS = { name: 'dyndns.example.test', port: 8081, user: 'box', password: 'dyn-secret-2024' } as const;
const CHALLTEST_MANAGEMENT = 'http://127.0.0.1:8055';
const PEBBLE_MANAGEMENT = 'https://127.0.0.1:15000';

export interface VirtualInternetOptions {
  /** pebble's certificate lifetime in seconds (short ones make renewals happen in the test). */
  certificateSeconds?: number;
  /** The owner's own DNS server for a zone (knotd taking RFC 2136 updates), delegated to by the public resolver. */
  ownerDns?: OwnerDnsOptions;
  /** IPv6 on the links, SLAAC on the LAN, pinholes in the router's firewall (default off). */
  ipv6?: boolean;
}

export class VirtualInternet {
  readonly inet = namespaceName('inet');
  private readonly processes: NsProcess[] = [];
  private miniupnpd: NsProcess | null = null;
  private dhcp: DhcpServer | null = null;
  private agentInInet: NamespaceAgent | null = null;
  private managementAgent: NamespaceAgent | null = null;
  readonly dyndnsUpdates: Array<{ update: string; myip: string; myipv6: string | null; answer: string }> = [];
  /** The addresses the provider's address echo (GET /checkip) answered. */
  readonly echoes: string[] = [];
  /** PEM: the ACME server's TLS root and pebble's issuing root (what NESTBOX_ACME_CA_FILE holds). */
  caFile = '';
  wanAddress: string = INTERNET.wan;
  /** The owner's DNS server, when the options asked for one. */
  ownerDns: OwnerDns | null = null;

  private constructor(
    private readonly home: VirtualHome,
    private readonly options: VirtualInternetOptions = {},
  ) {}

  /** IPv6 on the links, SLAAC on the LAN, pinholes in the router's firewall. */
  get ipv6(): boolean {
    return this.options.ipv6 === true;
  }

  /** The DNS server everyone on the internet (and the router) asks. */
  private get publicResolver(): string {
    return this.options.ownerDns ? OWNER_DNS.resolver : INTERNET.dns;
  }

  /** Builds the internet beside `home` (made with `homeDhcp: false`: the router's dnsmasq is started here). */
  static async build(home: VirtualHome, options: VirtualInternetOptions = {}): Promise<VirtualInternet> {
    requirePackage(['nftables', 'miniupnpd-nftables', 'pebble', 'openssl']);
    const internet = new VirtualInternet(home, options);
    try {
      await internet.buildLinks();
      if (internet.ipv6) await internet.buildIpv6();
      await internet.startRouter();
      await internet.startServices(options);
    } catch (error) {
      await internet.close();
      throw error;
    }
    return internet;
  }

  private get router(): string {
    return this.home.names.home;
  }

  private async buildLinks(): Promise<void> {
    await addNamespace(this.inet);
    writeFileSync(`/etc/netns/${this.inet}/resolv.conf`, `nameserver ${this.publicResolver}\n`);
    await ip('-n', this.router, 'link', 'add', 'wan0', 'type', 'veth', 'peer', 'name', 'isp0', 'netns', this.inet);
    await ip('-n', this.inet, 'addr', 'add', `${INTERNET.isp}/24`, 'dev', 'isp0');
    await ip('-n', this.inet, 'addr', 'add', `${INTERNET.carrierNat.isp}/24`, 'dev', 'isp0');
    for (const address of [INTERNET.dns, INTERNET.acme, INTERNET.dyndns, INTERNET.peer])
      await ip('-n', this.inet, 'addr', 'add', `${address}/32`, 'dev', 'lo');
    if (this.options.ownerDns)
      for (const address of [OWNER_DNS.primary, OWNER_DNS.resolver])
        await ip('-n', this.inet, 'addr', 'add', `${address}/32`, 'dev', 'lo');
    await ip('-n', this.inet, 'link', 'set', 'isp0', 'up');
    await ip('-n', this.router, 'addr', 'add', `${INTERNET.wan}/24`, 'dev', 'wan0');
    await ip('-n', this.router, 'link', 'set', 'wan0', 'up');
    await ip('-n', this.router, 'route', 'add', 'default', 'via', INTERNET.isp);
  }

  /**
   * IPv6 beside IPv4: static addresses on the ISP link (no DAD wait), the home prefix routed to the
   * router, the router's LAN addresses (miniupnpd needs one to enable IPv6). The box gets privacy
   * addresses too (use_tempaddr=2): what it publishes must be its stable one.
   */
  private async buildIpv6(): Promise<void> {
    const router = this.router;
    await ip('-n', this.inet, 'addr', 'add', `${INTERNET6.isp}/64`, 'dev', 'isp0', 'nodad');
    await ip('-n', this.inet, '-6', 'route', 'add', `${INTERNET6.homePrefix}/48`, 'via', INTERNET6.wan);
    await ip('-n', router, 'addr', 'add', `${INTERNET6.wan}/64`, 'dev', 'wan0', 'nodad');
    await ip('-n', router, '-6', 'route', 'add', 'default', 'via', INTERNET6.isp);
    await ip('-n', router, 'addr', 'add', `${INTERNET6.router}/64`, 'dev', 'lan0', 'nodad');
    await ip('-n', router, 'addr', 'add', `${INTERNET6.ulaRouter}/64`, 'dev', 'lan0', 'nodad');
    execFileSync('ip', ['netns', 'exec', router, 'sysctl', '-qw', 'net.ipv6.conf.all.forwarding=1']);
    // The chip's boots make ethsta0 anew: the namespace's default holds for every new one.
    for (const scope of ['default', 'ethsta0'])
      execFileSync('ip', [
        'netns',
        'exec',
        this.home.names.box,
        'sysctl',
        '-qw',
        `net.ipv6.conf.${scope}.use_tempaddr=2`,
      ]);
  }

  /** dnsmasq's router advertisements on the LAN: both /64s for SLAAC, every few seconds. */
  private raOptions(): string[] {
    if (!this.ipv6) return [];
    return [
      '--enable-ra',
      `--dhcp-range=${INTERNET6.homePrefix},ra-only,64,1h`,
      `--dhcp-range=${INTERNET6.ulaPrefix},ra-only,64,1h`,
      '--ra-param=lan0,4,1800',
    ];
  }

  /** Forwarding, NAT and miniupnpd on the home router; its dnsmasq forwards to the public DNS. */
  private async startRouter(): Promise<void> {
    const dir = this.home.dir.path;
    execFileSync('ip', ['netns', 'exec', this.router, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    writeFileSync(join(dir, 'router.nft'), routerRuleset('wan0'));
    execFileSync('ip', ['netns', 'exec', this.router, 'nft', '-f', join(dir, 'router.nft')]);
    this.dhcp = await startDhcpServer({
      namespace: this.router,
      iface: 'lan0',
      address: HOME_NET.router,
      rangeStart: HOME_NET.rangeStart,
      rangeEnd: HOME_NET.rangeEnd,
      dir,
      extra: [
        '--domain=home.lan',
        '--local=/home.lan/',
        `--server=${this.publicResolver}`,
        '--no-ping',
        ...this.raOptions(),
      ],
    });
  }

  /**
   * miniupnpd running (UPnP IGD and NAT-PMP/PCP on) or not (the router's "UPnP" switch off). Started
   * by the test once the box is associated: the LAN link is down before, as the radio decides.
   */
  async startMiniupnpd(enabled: boolean): Promise<void> {
    await this.miniupnpd?.stop();
    this.miniupnpd = null;
    if (!enabled) return;
    const conf = join(this.home.dir.path, 'miniupnpd.conf');
    writeFileSync(conf, miniupnpdConfig({ wan: 'wan0', lan: 'lan0', lanNet: `${HOME_NET.router}/24` }));
    const daemon = spawnIn(this.router, 'miniupnpd', [
      '-f',
      conf,
      '-d',
      '-P',
      join(this.home.dir.path, 'miniupnpd.pid'),
    ]);
    this.miniupnpd = daemon;
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (daemon.child.exitCode !== null) throw new Error(`miniupnpd exited: ${daemon.stderr()}`);
  }

  /** The router reboots: its mappings (rules and miniupnpd's memory) are gone. */
  async rebootRouter(enabled = true): Promise<void> {
    await this.miniupnpd?.stop();
    execFileSync('ip', [
      'netns',
      'exec',
      this.router,
      'nft',
      'flush',
      'chain',
      'inet',
      'filter',
      'prerouting_miniupnpd',
    ]);
    execFileSync('ip', ['netns', 'exec', this.router, 'nft', 'flush', 'chain', 'inet', 'filter', 'miniupnpd']);
    await this.startMiniupnpd(enabled);
  }

  /** The DNAT rules miniupnpd has made: "tcp 80 -> 10.77.0.123:80". */
  forwardedPorts(): string[] {
    const rules = execFileSync(
      'ip',
      ['netns', 'exec', this.router, 'nft', 'list', 'chain', 'inet', 'filter', 'prerouting_miniupnpd'],
      {
        encoding: 'utf8',
      },
    );
    return [...rules.matchAll(/dport (\d+) dnat ip to ([\d.]+:\d+)/g)].map((m) => `tcp ${m[1]} -> ${m[2]}`);
  }

  /** The IPv6 pinholes miniupnpd has opened in the router's firewall: "tcp 443 -> [2001:db8:…]". */
  pinholes(): string[] {
    const rules = execFileSync(
      'ip',
      ['netns', 'exec', this.router, 'nft', 'list', 'chain', 'inet', 'filter', 'miniupnpd'],
      {
        encoding: 'utf8',
      },
    );
    // miniupnpd writes raw header matches: nft shows the IPv6 destination as `@nh,192,128 0x…`.
    return rules
      .split('\n')
      .map((line) => ({
        address: /@nh,192,128 0x([0-9a-f]{32})/.exec(line)?.[1],
        port: /th dport (\d+)/.exec(line)?.[1],
      }))
      .filter((rule) => rule.address && rule.port)
      .map((rule) => `tcp ${rule.port} -> [${hexToIpv6(rule.address!)}]`);
  }

  /** The provider gives the router another WAN address (same link; its IPv6 stays). */
  async changeWanAddress(address: string, prefix = 24, gateway: string = INTERNET.isp): Promise<void> {
    await ip('-n', this.router, '-4', 'addr', 'flush', 'dev', 'wan0');
    await ip('-n', this.router, 'addr', 'add', `${address}/${prefix}`, 'dev', 'wan0');
    await ip('-n', this.router, 'route', 'replace', 'default', 'via', gateway);
    this.wanAddress = address;
  }

  private async startServices(options: VirtualInternetOptions): Promise<void> {
    const dir = this.home.dir.path;
    const ca = makeTestCa(dir, ACME_NAME, [INTERNET.acme, '127.0.0.1']);
    const agent = await this.startAgent(join(dir, 'test-ca.pem'));
    this.managementAgent = agent;
    const challtest = this.spawn('pebble-challtestsrv', [
      '-dns01',
      `${INTERNET.dns}:53`,
      '-http01',
      '',
      '-https01',
      '',
      '-tlsalpn01',
      '',
      '-management',
      '127.0.0.1:8055',
      '-defaultIPv4',
      '',
      '-defaultIPv6',
      '',
    ]);
    await this.waitForHttp(agent, `${CHALLTEST_MANAGEMENT}/`, challtest, 'pebble-challtestsrv');
    await this.setRecord(ACME_NAME, INTERNET.acme);
    await this.setRecord(DYNDNS.name, INTERNET.dyndns);
    await this.setRecord('peer.example.test', INTERNET.peer);
    if (this.options.ownerDns) this.ownerDns = await startOwnerDns(this.inet, dir, this.options.ownerDns, INTERNET.dns);
    const config = join(dir, 'pebble.json');
    writeFileSync(
      config,
      JSON.stringify({
        pebble: {
          listenAddress: `0.0.0.0:14000`,
          managementListenAddress: '127.0.0.1:15000',
          certificate: ca.certFile,
          privateKey: ca.keyFile,
          httpPort: 80,
          tlsPort: 443,
          ocspResponderURL: '',
          externalAccountBindingRequired: false,
          certificateValidityPeriod: options.certificateSeconds ?? 3600,
        },
      }),
    );
    const pebble = this.spawn('pebble', ['-config', config, '-dnsserver', `${this.publicResolver}:53`], {
      PEBBLE_VA_NOSLEEP: '1',
      PEBBLE_WFE_NONCEREJECT: '0',
      PEBBLE_AUTHZREUSE: '0',
    });
    await this.waitForHttp(agent, `${PEBBLE_MANAGEMENT}/roots/0`, pebble, 'pebble');
    const root = await agent.fetch(`${PEBBLE_MANAGEMENT}/roots/0`);
    this.caFile = join(dir, 'internet-roots.pem');
    writeFileSync(this.caFile, ca.caPem + root.body);
    const dyndns = this.spawn(process.execPath, [
      join(DIST, 'test', 'helpers', 'virtual-internet', 'dyndns2-server.js'),
      INTERNET.dyndns,
      String(DYNDNS.port),
      DYNDNS.user,
      DYNDNS.password,
      CHALLTEST_MANAGEMENT,
    ]);
    await dyndns.waitForLine((line) => line.includes('"ready"'), 10_000, 'the dyndns2 provider', true);
    dyndns.onLine((line) => {
      if (line.includes('"update"')) this.dyndnsUpdates.push(JSON.parse(line));
      if (line.includes('"echo"')) this.echoes.push((JSON.parse(line) as { echo: string }).echo);
    });
  }

  /** A client on the internet that trusts pebble's issuing root (as browsers trust Let's Encrypt's). */
  async agent(): Promise<NamespaceAgent> {
    this.agentInInet ??= await this.startAgent(this.caFile);
    return this.agentInInet;
  }

  /** An agent in the internet namespace trusting `roots` (NODE_EXTRA_CA_CERTS, read when it starts). */
  private async startAgent(roots: string): Promise<NamespaceAgent> {
    const before = process.env.NODE_EXTRA_CA_CERTS;
    process.env.NODE_EXTRA_CA_CERTS = roots;
    try {
      return await NamespaceAgent.start(this.inet);
    } finally {
      if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = before;
    }
  }

  /** Removes a name's A records from the public DNS (what an owner does in the provider's page). */
  async clearARecord(name: string): Promise<void> {
    const answer = await this.managementAgent!.fetch(`${CHALLTEST_MANAGEMENT}/clear-a`, {
      method: 'POST',
      body: JSON.stringify({ host: `${name}.` }),
    });
    if (answer.status !== 200) throw new Error(`challtestsrv clear-a: ${answer.status} ${answer.body}`);
  }

  /** A public A record in challtestsrv (what any resolver in the internet answers). */
  async setRecord(name: string, address: string): Promise<void> {
    const answer = await this.managementAgent!.fetch(`${CHALLTEST_MANAGEMENT}/add-a`, {
      method: 'POST',
      body: JSON.stringify({ host: `${name}.`, addresses: [address] }),
    });
    if (answer.status !== 200) throw new Error(`challtestsrv add-a: ${answer.status} ${answer.body}`);
  }

  private spawn(command: string, args: string[], env: NodeJS.ProcessEnv = {}): NsProcess {
    const child = spawnIn(this.inet, command, args, { ...process.env, ...env });
    this.processes.push(child);
    return child;
  }

  private async waitForHttp(agent: NamespaceAgent, url: string, child: NsProcess, what: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await agent.fetch(url, { timeoutMs: 1000 });
        return;
      } catch {
        if (child.child.exitCode !== null) throw new Error(`${what} exited: ${child.stderr()}`);
        if (Date.now() > deadline) throw new Error(`${what} did not answer: ${child.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** The internet provider drops what comes in to `port` on the home's address (as some block 80 and 25). */
  blockInboundPort(port: number): void {
    const rules = `table inet isp_block {\n  chain inbound {\n    type filter hook prerouting priority -300; policy accept;\n    iifname "wan0" tcp dport ${port} drop\n  }\n}\n`;
    const file = join(this.home.dir.path, `isp-block-${port}.nft`);
    writeFileSync(file, rules);
    execFileSync('ip', ['netns', 'exec', this.router, 'nft', '-f', file]);
  }

  /** The provider lifts every block. */
  unblockInboundPorts(): void {
    execFileSync('ip', ['netns', 'exec', this.router, 'nft', 'delete', 'table', 'inet', 'isp_block']);
  }

  async close(): Promise<void> {
    await this.agentInInet?.stop().catch(() => undefined);
    await this.managementAgent?.stop().catch(() => undefined);
    for (const child of this.processes.reverse()) await child.stop().catch(() => undefined);
    await this.ownerDns?.stop().catch(() => undefined);
    await this.miniupnpd?.stop().catch(() => undefined);
    await this.dhcp?.stop().catch(() => undefined);
    deleteNamespace(this.inet);
  }
}
