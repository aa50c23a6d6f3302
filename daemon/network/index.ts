/**
 * The network layer (NESTBOX_NETWORK=on): the box's two interfaces carried out with real system
 * tools, as the connectivity runner decides. The station (DHCP client), the setup AP (address,
 * captive DNS, port-80 portal, dnsmasq) and mDNS report into one health component, `network`.
 */
import { join } from 'node:path';
import type { Config } from '../config.js';
import { CaptiveDns } from '../connectivity/captive-dns.js';
import type { DeviceState } from '../device/state.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import { IpTool } from './ip.js';
import { MdnsAnnouncer } from './mdns.js';
import { NetworkHealth } from './problems.js';
import { SetupApInterface, type ExtraListener } from './setup-ap.js';
import { StationInterface } from './station.js';

/** The system tools, by name on PATH; tests point one at a missing binary. */
export interface NetworkTools {
  ip: string;
  udhcpc: string;
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

export class NetworkLayer {
  readonly station: StationInterface;
  readonly setupAp: SetupApInterface | null;
  readonly mdns: MdnsAnnouncer;
  readonly captiveDns: CaptiveDns | null;

  constructor(options: NetworkLayerOptions) {
    const { config, device, log } = options;
    const tools: NetworkTools = { ip: 'ip', udhcpc: 'udhcpc', dnsmasq: 'dnsmasq', ...options.tools };
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
    health.refresh();
  }

  start(): void {
    this.setupAp?.start();
    this.mdns.refresh();
  }

  /** After the connectivity runner has stopped (it releases the station itself). */
  async stop(): Promise<void> {
    // Goodbye first, after any announcement under way, while every address still exists.
    await this.mdns.stop();
    await this.station.stop();
    await this.setupAp?.stop();
  }
}

/** The main HTTP server already answers on port 80 of the setup address. */
function portalCovered(config: Config, address: string): boolean {
  return config.httpPort === 80 && ['0.0.0.0', '::', address].includes(config.httpHost);
}
