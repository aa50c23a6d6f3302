/**
 * A virtual home out of network namespaces, for the network layer's end-to-end tests and bench:
 *
 *   home ── lan0 (br) ─ sta0 ═══ ethsta0 ── box ── ethap0 ═══ ap0 ─ air (br0) ─ ph0 ═══ wlan0 ── phone
 *   (dnsmasq: DHCP + DNS                      (daemon, on the                          (udhcpc)
 *    on 10.77.0.0/24)                          simulated coprocessor)
 *
 * The box's ends are the ESP-Hosted driver's interfaces as driver-links.ts plays them: carrier
 * always on, a MAC that is not the chip's until the daemon sets one, frames through only while the
 * simulated coprocessor (dist/bundle/sim.js on a pseudo-terminal, with --radio-events) is
 * associated / has its soft AP up, and both deleted and made again each time the chip boots. "air"
 * is the soft AP's radio cell, a bridge the phones join; ph0 (the phone's own Wi-Fi) has a carrier
 * while the soft AP is up and the phone has joined it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIST, tempDir } from '../paths.js';
import { AIR_BRIDGE, BOX_IFACES, DriverLinks, HOME_BRIDGE } from './driver-links.js';
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../daemon.js';
import { NamespaceAgent } from './agent-client.js';
import { dnsmasqArgs } from '../../../daemon/network/dhcp-server.js';
import {
  startDhcpClient,
  startDhcpServer,
  startDnsmasq,
  writeClientScript,
  type DhcpClient,
  type DhcpServer,
} from './dhcp.js';
import {
  addNamespace,
  cleanup,
  deleteNamespace,
  ip,
  namespaceName,
  requireRoot,
  sweepStaleNamespaces,
} from './netns.js';
import { spawnIn, type NsProcess } from './process.js';
import { requirePackage } from '../system-packages.js';

export const HOME_NET = {
  router: '10.77.0.1',
  prefix: 24,
  rangeStart: '10.77.0.100',
  rangeEnd: '10.77.0.199',
} as const;
export { BOX_IFACES } from './driver-links.js';
export const PHONE_MAC = '02:5a:11:22:33:44';
/** The simulated coprocessor's station MAC, which the daemon gives ethsta0. */
export const STATION_MAC = '24:0a:c4:12:34:56';
/** Its soft AP's MAC (the station's plus one, as ESP-IDF derives it), which the daemon gives ethap0. */
export const SOFTAP_MAC = '24:0a:c4:12:34:57';
/** The daemon's station DHCP client's pace (daemon/network/station.ts): 5 discovers 1 s apart, then 3 s. */
const STATION_RETRIES = ['-t', '5', '-T', '1', '-A', '3'];
const HOME_IFACE = HOME_BRIDGE;
const PHONE_IFACE = 'wlan0';
/** The phone's end in the air. */
const PHONE_END = 'ph0';

export type TimelineEntry = { at: number; what: string; detail?: Record<string, unknown> };

export interface VirtualHomeOptions {
  /** The simulator's --time-scale (the daemon gets the same NESTBOX_COPROC_TIME_SCALE). */
  timeScale?: number;
  /** The simulator's firmware generation (--firmware; default the documented one). */
  firmware?: 'documented' | 'current';
  /** Start the home router's DHCP server (default true). */
  homeDhcp?: boolean;
  /**
   * The router pings an address before offering it, as dnsmasq does by default (default true):
   * about 3 s more for an address it has not checked lately. Off, every exchange meets the same
   * server, which comparisons need.
   */
  routerPings?: boolean;
}

export class VirtualHome {
  readonly timeline: TimelineEntry[] = [];
  readonly names: { box: string; home: string; phone: string; air: string };
  private homeDhcp: DhcpServer | null = null;
  private sim: NsProcess | null = null;
  private simPath = '';
  private phoneDhcp: DhcpClient | null = null;
  private agents = new Map<string, NamespaceAgent>();
  private readonly radio = { associated: false, softAp: false, phoneJoined: false };
  /** The chip's MACs as it last said (its boot line, or the radio line that opened a path). */
  private chipMacs = { sta: STATION_MAC, ap: SOFTAP_MAC };
  private radioQueue: Promise<void> = Promise.resolve();
  readonly links: DriverLinks;
  daemon: RunningDaemon | null = null;

  private constructor(
    readonly dir: { path: string; remove(): void },
    readonly clientScript: string,
    readonly timeScale: number,
    private readonly routerPings: boolean,
    private readonly firmware: 'documented' | 'current',
  ) {
    this.names = {
      box: namespaceName('box'),
      home: namespaceName('home'),
      phone: namespaceName('phone'),
      air: namespaceName('air'),
    };
    this.links = new DriverLinks(this.names);
  }

  static async build(options: VirtualHomeOptions = {}): Promise<VirtualHome> {
    requireRoot();
    // ip for the namespaces, dnsmasq and busybox udhcpc for DHCP, socat for the coprocessor's PTY.
    requirePackage(['iproute2', 'dnsmasq-base', 'busybox', 'socat', 'nftables']);
    sweepStaleNamespaces();
    const dir = tempDir('nestbox-vhome-');
    const home = new VirtualHome(
      dir,
      writeClientScript(dir.path),
      options.timeScale ?? 10,
      options.routerPings ?? true,
      options.firmware ?? 'documented',
    );
    try {
      await home.buildLinks();
      if (options.homeDhcp !== false) await home.startHomeDhcp();
    } catch (error) {
      await home.close();
      throw error;
    }
    return home;
  }

  private async buildLinks(): Promise<void> {
    const { box, home, phone, air } = this.names;
    for (const name of [box, home, phone, air]) await addNamespace(name);
    await this.links.build();
    await ip(
      '-n',
      phone,
      'link',
      'add',
      PHONE_IFACE,
      'address',
      PHONE_MAC,
      'type',
      'veth',
      'peer',
      'name',
      PHONE_END,
      'netns',
      air,
    );
    await ip('-n', air, 'link', 'set', PHONE_END, 'master', AIR_BRIDGE);
    await ip('-n', home, 'addr', 'add', `${HOME_NET.router}/${HOME_NET.prefix}`, 'dev', HOME_IFACE);
    // The phone's own interface is up; whether it has a carrier is the air's business.
    await ip('-n', phone, 'link', 'set', PHONE_IFACE, 'up');
  }

  /** The home router's dnsmasq: DHCP and DNS on lan0. */
  async startHomeDhcp(): Promise<void> {
    if (this.homeDhcp) return;
    this.homeDhcp = await startDhcpServer({
      namespace: this.names.home,
      iface: HOME_IFACE,
      address: HOME_NET.router,
      rangeStart: HOME_NET.rangeStart,
      rangeEnd: HOME_NET.rangeEnd,
      dir: this.dir.path,
      extra: ['--domain=home.lan', '--local=/home.lan/', ...(this.routerPings ? [] : ['--no-ping'])],
    });
    // The router's own word on when it leased what: "DHCPACK(lan0) 10.77.0.123 24:0a:c4:12:34:56".
    this.homeDhcp.process.onStderrLine((line) => {
      const ack = /DHCPACK\(\S+\) (\S+) (\S+)/.exec(line);
      if (ack) this.mark('home_dhcpack', { ip: ack[1], mac: ack[2] });
    });
    this.mark('home_dhcp_started');
  }

  async stopHomeDhcp(): Promise<void> {
    await this.homeDhcp?.stop();
    this.homeDhcp = null;
    this.mark('home_dhcp_stopped');
  }

  mark(what: string, detail?: Record<string, unknown>): TimelineEntry {
    const entry = { at: performance.now(), what, detail };
    this.timeline.push(entry);
    return entry;
  }

  /** The first timeline entry after `after` that matches; waits for it up to `timeoutMs`. */
  async waitFor(
    what: string | ((entry: TimelineEntry) => boolean),
    timeoutMs: number,
    after = 0,
  ): Promise<TimelineEntry> {
    const match = typeof what === 'string' ? (entry: TimelineEntry) => entry.what === what : what;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.timeline.find((entry) => entry.at > after && match(entry));
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `${typeof what === 'string' ? what : 'timeline entry'} not seen within ${timeoutMs} ms; timeline: ${this.describeTimeline(after)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  describeTimeline(after = 0, entries = 25): string {
    const start = this.timeline[0]?.at ?? 0;
    return this.timeline
      .filter((e) => e.at > after)
      .slice(-entries)
      .map((e) => `+${Math.round(e.at - start)}ms ${e.what}${e.detail ? ' ' + JSON.stringify(e.detail) : ''}`)
      .join('; ');
  }

  // ── the simulated coprocessor and the links it decides ────────────────────────────────────────

  /**
   * The standalone simulator on a pseudo-terminal, its radio changes driving the links.
   * It runs in the box's namespace (the pseudo-terminal is the same there), so a sweep after a
   * killed run finds it with everything else.
   */
  async startCoprocessor(): Promise<string> {
    const sim = spawnIn(this.names.box, process.execPath, [
      join(DIST, 'bundle', 'sim.js'),
      '--pty',
      '--radio-events',
      '--firmware',
      this.firmware,
      '--time-scale',
      String(this.timeScale),
    ]);
    this.sim = sim;
    const first = await sim.waitForLine((line) => line.startsWith('PTY '), 10_000, "the simulator's PTY line", true);
    this.simPath = first.slice(4);
    sim.onLine((line) => this.onSimLine(line));
    return this.simPath;
  }

  private onSimLine(line: string): void {
    let change: {
      radio?: string;
      associated?: boolean;
      active?: boolean;
      joined?: boolean;
      booted?: boolean;
      mac?: string;
      macs?: { sta: string; ap: string };
      ssid?: string;
    };
    try {
      change = JSON.parse(line);
    } catch {
      return;
    }
    if (!change.radio) return;
    this.mark(`radio_${change.radio}`, change);
    if (change.radio === 'chip') {
      if (change.booted && change.macs) this.chipMacs = change.macs;
      if (change.booted) this.queueRadio(() => this.chipBooted());
      return;
    }
    if (change.radio === 'station') this.radio.associated = change.associated === true;
    if (change.radio === 'station' && change.mac) this.chipMacs.sta = change.mac;
    if (change.radio === 'softap') this.radio.softAp = change.active === true;
    if (change.radio === 'softap' && change.mac) this.chipMacs.ap = change.mac;
    if (change.radio === 'softap_station' && change.mac === PHONE_MAC) this.radio.phoneJoined = change.joined === true;
    if (change.radio === 'softap' && !change.active) this.radio.phoneJoined = false;
    this.applyRadio();
  }

  /** The links follow the radio in order, one change at a time. */
  private applyRadio(): void {
    const station = this.radio.associated;
    const softAp = this.radio.softAp;
    const phone = softAp && this.radio.phoneJoined;
    const macs = { ...this.chipMacs };
    this.queueRadio(async () => {
      await this.links.setStation({ open: station, mac: macs.sta });
      await this.links.setSoftAp({ open: softAp, mac: macs.ap });
      await this.setPhoneCarrier(phone);
      this.mark('radio_applied', { station, softAp, phone });
    });
  }

  /** The driver's answer to the chip's init event: both interfaces made again. */
  private async chipBooted(): Promise<void> {
    const ifindex = await this.links.recreate();
    this.mark('interfaces_recreated', ifindex);
  }

  private queueRadio(change: () => Promise<void>): void {
    this.radioQueue = this.radioQueue.then(change).catch((error) => {
      this.mark('radio_error', { error: String(error) });
    });
  }

  private async setPhoneCarrier(phone: boolean): Promise<void> {
    await ip('-n', this.names.air, 'link', 'set', PHONE_END, phone ? 'up' : 'down');
  }

  /** One scenario command to the simulator; resolves with its JSON answer. */
  async simCommand(command: string): Promise<Record<string, unknown>> {
    if (!this.sim) throw new Error('the coprocessor is not started');
    const word = command.split(/\s+/)[0];
    const answer = this.sim.waitForLine(
      (line) => line.startsWith('{"ok"') && JSON.parse(line).command === word,
      5000,
      `the simulator's answer to ${command}`,
    );
    this.sim.child.stdin!.write(command + '\n');
    const parsed = JSON.parse(await answer) as Record<string, unknown>;
    if (parsed.ok !== true) throw new Error(`simulator: ${command}: ${String(parsed.error)}`);
    return parsed;
  }

  // ── agents and the daemon ──────────────────────────────────────────────────────────────────────

  async agent(role: 'box' | 'home' | 'phone'): Promise<NamespaceAgent> {
    const existing = this.agents.get(role);
    if (existing) return existing;
    const agent = await NamespaceAgent.start(this.names[role]);
    this.agents.set(role, agent);
    return agent;
  }

  /** The real daemon inside the box's namespace on the simulator's PTY, network layer on. */
  async startDaemon(
    env: Record<string, string> = {},
    options: Omit<DaemonOptions, 'env' | 'within'> = {},
  ): Promise<RunningDaemon> {
    if (!this.simPath) await this.startCoprocessor();
    const box = await this.agent('box');
    const daemon = await startDaemon({
      port: 8080,
      startTimeoutMs: 30_000,
      ...options,
      within: { command: ['ip', 'netns', 'exec', this.names.box], fetch: (url, init) => box.response(url, init) },
      // The box's own defaults with the layer on: HTTP on every address, ethsta0/ethap0,
      // 192.168.4.1/24 for the setup AP, nestbox.local (the helper's loopback host is unset).
      env: {
        NESTBOX_NETWORK: 'on',
        NESTBOX_HTTP_HOST: undefined,
        NESTBOX_COPROC: `serial:${this.simPath}`,
        NESTBOX_COPROC_TIME_SCALE: String(this.timeScale),
        NESTBOX_BASE_URL: 'http://nestbox.local:8080',
        NESTBOX_SETUP_PASSPHRASE: 'setup-pass-2024',
        ...env,
      },
    });
    this.daemon = daemon;
    daemon.child.stdout!.on('data', () => undefined);
    this.watchConnectivity(daemon);
    return daemon;
  }

  private watchConnectivity(daemon: RunningDaemon): void {
    let seen = 0;
    const scan = () => {
      for (; seen < daemon.logs.length; seen++) {
        const line = daemon.logs[seen];
        if (typeof line.to === 'string' && typeof line.from === 'string' && line.msg.startsWith('connectivity '))
          this.mark(`state_${line.to}`, { from: line.from, cause: line.cause });
      }
    };
    scan();
    daemon.child.stdout!.on('data', () => setImmediate(scan));
  }

  // ── the phone ──────────────────────────────────────────────────────────────────────────────────

  /** The phone joins the soft AP (the radio brings its link up) and starts its DHCP client. */
  async phoneJoin(): Promise<DhcpClient> {
    const joined = this.mark('phone_join');
    const answer = await this.simCommand(`join ${PHONE_MAC}`);
    if (answer.mac !== PHONE_MAC)
      throw new Error(`the phone could not join the soft AP (is it up?): ${JSON.stringify(answer)}`);
    await this.waitFor((e) => e.what === 'radio_applied' && e.detail?.phone === true, 5000, joined.at);
    await this.phoneDhcp?.stop();
    this.phoneDhcp = startDhcpClient(this.names.phone, PHONE_IFACE, this.clientScript);
    return this.phoneDhcp;
  }

  /** The phone releases its lease and walks away from the soft AP. */
  async phoneLeave(): Promise<void> {
    await this.phoneDhcp?.stop();
    this.phoneDhcp = null;
    this.mark('phone_leave');
    if (this.radio.phoneJoined) await this.simCommand(`leave ${PHONE_MAC}`);
    await ip('-n', this.names.phone, 'addr', 'flush', 'dev', PHONE_IFACE);
  }

  // ── bare exchanges (what DHCP itself takes here, without the daemon) ──────────────────────────

  /**
   * The home router's DHCP exchange with the same client on the box's station interface, timed from
   * association (the radio lets frames through) to the lease: the interface gets the chip's MAC,
   * comes up and the client starts, as the daemon does. No daemon may be running.
   */
  async bareStationExchange(): Promise<number> {
    const { box } = this.names;
    const radio = this.links.radio.station;
    const started = performance.now();
    await this.links.setStation({ open: true, mac: STATION_MAC });
    // The daemon's identity and pace on this link: the coprocessor's station MAC, and its client's -t/-T/-A.
    await ip('-n', box, 'link', 'set', BOX_IFACES.station, 'address', STATION_MAC);
    await ip('-n', box, 'link', 'set', BOX_IFACES.station, 'up');
    const client = startDhcpClient(box, BOX_IFACES.station, this.clientScript, STATION_RETRIES);
    try {
      const lease = await client.waitForLease(20_000);
      return lease.at - started;
    } finally {
      await client.stop();
      await this.links.setStation(radio);
      await ip('-n', box, 'addr', 'flush', 'dev', BOX_IFACES.station);
      await ip('-n', box, 'link', 'set', BOX_IFACES.station, 'down');
    }
  }

  /**
   * A DHCP server on the box's AP interface like the setup AP's (dnsmasq, option 114), and the
   * phone's client, timed from the phone's carrier coming up to its lease. No daemon may be running.
   */
  async barePhoneExchange(setupAddress = '192.168.4.1'): Promise<{ ms: number; captivePortal: string }> {
    const { box, phone } = this.names;
    const radio = this.links.radio.softAp;
    await this.links.setSoftAp({ open: true, mac: SOFTAP_MAC });
    await ip('-n', box, 'link', 'set', BOX_IFACES.ap, 'address', SOFTAP_MAC);
    await ip('-n', box, 'addr', 'add', `${setupAddress}/24`, 'dev', BOX_IFACES.ap);
    await ip('-n', box, 'link', 'set', BOX_IFACES.ap, 'up');
    // The daemon's own dnsmasq command line for the setup AP.
    const server = await startDnsmasq(
      box,
      dnsmasqArgs({ iface: BOX_IFACES.ap, address: setupAddress, prefixLength: 24, stateDir: this.dir.path }),
    );
    try {
      const started = performance.now();
      await this.setPhoneCarrier(true);
      const client = startDhcpClient(phone, PHONE_IFACE, this.clientScript);
      try {
        const lease = await client.waitForLease(20_000);
        return { ms: lease.at - started, captivePortal: lease.captivePortal };
      } finally {
        await client.stop();
      }
    } finally {
      await server.stop();
      await this.setPhoneCarrier(false);
      await this.links.setSoftAp(radio);
      await ip('-n', phone, 'addr', 'flush', 'dev', PHONE_IFACE);
      await ip('-n', box, 'addr', 'flush', 'dev', BOX_IFACES.ap);
      await ip('-n', box, 'link', 'set', BOX_IFACES.ap, 'down');
    }
  }

  /** The processes running in one of the namespaces: pid and name (comm; a busybox applet's own name). */
  async processesIn(role: 'box' | 'home' | 'phone'): Promise<Array<{ pid: number; name: string }>> {
    const pids = (await ip('netns', 'pids', this.names[role])).split(/\s+/).filter(Boolean);
    return pids.flatMap((pid) => {
      try {
        const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return [{ pid: Number(pid), name: comm === 'busybox' && argv[1] ? argv[1] : comm }];
      } catch {
        return [];
      }
    });
  }

  async stopDaemon(): Promise<number | null> {
    const daemon = this.daemon;
    this.daemon = null;
    return daemon ? daemon.stop() : null;
  }

  /** Stops everything in reverse and removes every namespace, veth and /etc/netns dir. */
  async close(): Promise<void> {
    try {
      await this.stopDaemon().catch(() => undefined);
      await this.phoneDhcp?.stop();
      for (const agent of this.agents.values()) await agent.stop().catch(() => undefined);
      this.agents.clear();
      await this.homeDhcp?.stop();
      await this.sim?.stop();
      await this.radioQueue;
    } finally {
      for (const name of Object.values(this.names)) deleteNamespace(name);
      cleanup.runSync();
      this.dir.remove();
    }
  }
}
