/**
 * The wildcard DNS that makes phones open the setup portal: every A query is answered with the
 * soft-AP address (TTL 0, so nothing stays cached after setup), AAAA and other types get an empty
 * answer at once so IPv6 lookups do not stall. It binds only the soft-AP interface address (port
 * 53 of other interfaces stays with systemd-resolved or dnsmasq) and runs only in setup mode.
 */
import { createSocket, type Socket } from 'node:dgram';
import type dnsPacket from 'dns-packet';
import type { DeviceState } from '../device/state.js';
import { lazy } from '../lib/on-first-use.js';
import type { Logger } from '../log/logger.js';

export interface CaptiveDnsOptions {
  /** The soft-AP interface address: bound, and given as every answer. */
  address: string;
  port: number;
  log: Logger;
}

type DnsPackets = typeof dnsPacket;

export class CaptiveDns {
  private socket: Socket | null = null;
  /** Loaded when setup mode first starts the DNS: most starts never need it. */
  private readonly packets = lazy('the captive DNS (dns-packet)', async () => (await import('dns-packet')).default);
  queries = 0;
  malformed = 0;

  constructor(private readonly options: CaptiveDnsOptions) {}

  get running(): boolean {
    return this.socket !== null;
  }

  /** The bound port (useful when asked for port 0). */
  get port(): number | null {
    return this.socket ? this.socket.address().port : null;
  }

  async start(): Promise<void> {
    if (this.socket) return;
    const packets = await this.packets();
    const socket = createSocket('udp4');
    socket.on('message', (message, peer) => this.answer(packets, socket, message, peer.port, peer.address));
    // A bind that fails is the caller's one error (and the socket goes); later errors are logged here.
    await new Promise<void>((resolve, reject) => {
      socket.once('error', (error) => {
        socket.close();
        reject(error);
      });
      socket.bind(this.options.port, this.options.address, () => {
        socket.removeAllListeners('error');
        socket.on('error', (error) => this.options.log.warn('captive DNS socket error', { error }));
        resolve();
      });
    });
    this.socket = socket;
    this.options.log.info('captive DNS answering', { address: this.options.address, port: this.options.port });
  }

  async stop(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  private answer(dnsPacket: DnsPackets, socket: Socket, message: Buffer, port: number, address: string): void {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      this.malformed += 1;
      return;
    }
    if (query.type !== 'query' || !query.questions?.length) {
      this.malformed += 1;
      return;
    }
    this.queries += 1;
    const answers: dnsPacket.Answer[] = query.questions
      .filter((question) => question.type === 'A' && question.class === 'IN')
      .map((question) => ({ type: 'A', class: 'IN', name: question.name, ttl: 0, data: this.options.address }));
    const recursionDesired = (query.flags ?? 0) & dnsPacket.RECURSION_DESIRED;
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | recursionDesired,
      questions: query.questions,
      answers,
    });
    socket.send(response, port, address);
  }
}

/** Runs the captive DNS exactly while the setup AP is up. Returns the stop function. */
export function captiveDnsDuringSetup(device: DeviceState, dns: CaptiveDns, log: Logger): () => Promise<void> {
  let work: Promise<void> = Promise.resolve();
  const follow = () => {
    const wanted = device.get().softap.active;
    work = work
      .then(() => (wanted ? dns.start() : dns.stop()))
      .catch((error) => log.warn('captive DNS not started', { error }));
  };
  const onChange = ({ paths }: { paths: string[] }) => {
    if (paths.includes('softap.active')) follow();
  };
  device.on('change', onChange);
  follow();
  return async () => {
    device.off('change', onChange);
    await work;
    await dns.stop();
  };
}
