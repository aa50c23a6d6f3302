/**
 * The network layer (NESTBOX_NETWORK=on): the box's two interfaces carried out with real system
 * tools, as the connectivity runner decides. The station (DHCP client), the setup AP (address,
 * captive DNS, port-80 portal, dnsmasq) and mDNS report into one health component, `network`.
 * The driver's interfaces come and go with the chip (a reboot re-creates them bare): the kernel's
 * word on that (interface-watch.ts) and the chip's MACs after each of its initialisations have both
 * interfaces set up again.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { ChipInterfaces, ChipMacs } from '../connectivity/chip-interfaces.js';
import { CaptiveDns } from '../connectivity/captive-dns.js';
import type { DeviceState } from '../device/state.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import { InterfaceWatch } from './interface-watch.js';
import { IpTool } from './ip.js';
import { MdnsAnnouncer } from './mdns.js';
import { NetworkHealth } from './problems.js';
import { SetupApInterface, type ExtraListener } from './setup-ap.js';
import { StationInterface } from './station.js';

/** The system tools, by name on PATH; tests point one at a missing binary. */
export interface NetworkTools {
  ip: string;
  /** Unset: udhcpc on PATH (Debian's udhcpc package), else busybox's applet. */
  udhcpc?: string;
  dnsmasq: string;
}

export interface NetworkLayerOptions {
  config: Config;
  device: DeviceState;
  log: Logger;
  health: (health: ComponentHealth) => void;
  /** Opens the app on another address and port (HttpServer.listenAlso). */
  listen: ExtraListener;
  /** The instance title, the mDNS service's name. */
  title: string;
  tools?: Partial<NetworkTools>;
}

export class NetworkLayer implements ChipInterfaces {
  readonly station: StationInterface;
  readonly watch: InterfaceWatch;
  readonly setupAp: SetupApInterface | null;
  readonly mdns: MdnsAnnouncer;
  readonly captiveDns: CaptiveDns | null;

  constructor(options: NetworkLayerOptions) {
    const { config, device, log } = options;
    const tools: NetworkTools = { ip: 'ip', dnsmasq: 'dnsmasq', ...options.tools };
    const ip = new IpTool(tools.ip);
    const health = new NetworkHealth(options.health, () => device.get().network?.address ?? null);
    this.mdns = new MdnsAnnouncer({
      hostname: config.hostname,
      title: options.title,
      httpPort: config.httpPort,
      interfaces: [config.staIface, config.apIface],
      log: log.child({ part: 'mdns' }),
      report: health.reporter('mDNS'),
    });
    const addressChanged = () => this.mdns.refresh();
    const addressGoing = () => this.mdns.withdraw();
    this.station = new StationInterface({
      iface: config.staIface,
      hostname: config.hostname,
      device,
      ip,
      udhcpc: tools.udhcpc,
      log: log.child({ part: 'station' }),
      report: health.reporter('station'),
      addressChanged,
      addressGoing,
    });
    if (config.setupApAddress) {
      const address = config.setupApAddress;
      this.captiveDns = new CaptiveDns({ address, port: config.setupDnsPort, log: log.child({ part: 'captive-dns' }) });
      this.setupAp = new SetupApInterface({
        iface: config.apIface,
        address,
        prefixLength: config.setupApPrefixLength,
        stateDir: join(config.dataDir, 'network'),
        device,
        ip,
        dns: this.captiveDns,
        dnsmasq: tools.dnsmasq,
        portalListener: portalCovered(config, address) ? null : options.listen,
        log: log.child({ part: 'setup-ap' }),
        report: health.reporter('setup AP'),
        addressChanged,
        addressGoing,
      });
    } else {
      this.captiveDns = null;
      this.setupAp = null;
    }
    this.watch = new InterfaceWatch({
      interfaces: [config.staIface, config.apIface],
      ip: tools.ip,
      log: log.child({ part: 'interfaces' }),
    });
    const watchReport = health.reporter('interface monitor');
    this.watch.on('problem', (problem) =>
      watchReport(
        problem
          ? { state: 'fault', detail: `chip reboots go unnoticed: ${problem}` }
          : { state: 'idle', detail: 'watching the interfaces' },
      ),
    );
    this.watch.on('link', (change) => {
      if (change.iface === config.staIface) this.station.linkChanged(change);
      if (change.iface === config.apIface) this.setupAp?.linkChanged(change);
    });
    health.refresh();
  }

  start(): void {
    this.watch.start();
    this.setupAp?.start();
    this.mdns.refresh();
  }

  /** The chip (re)initialised: its MACs for both interfaces, and a check that they are still the ones set up. */
  chipInitialised(macs: ChipMacs): void {
    this.station.verify(macs.station);
    this.setupAp?.chipMac(macs.softap);
  }

  /** After the connectivity runner has stopped (it releases the station itself). */
  async stop(): Promise<void> {
    // Goodbye first, after any announcement under way, while every address still exists.
    await this.mdns.stop();
    await this.station.stop();
    await this.setupAp?.stop();
    await this.watch.stop();
  }
}

/** The main HTTP server already answers on port 80 of the setup address. */
function portalCovered(config: Config, address: string): boolean {
  return config.httpPort === 80 && ['0.0.0.0', '::', address].includes(config.httpHost);
}
