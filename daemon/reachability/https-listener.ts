/**
 * The box's own HTTPS listener (NESTBOX_HTTPS_PORT) serving the same app as the HTTP one. The
 * certificate is picked per connection (SNI) from the current one, so a renewed certificate takes
 * over at the next handshake without a restart; before the first one, handshakes fail. The
 * streaming server's paths and WebSocket upgrades are served here too (`wss://<name>`). On the
 * wildcard IPv4 address it listens on IPv6's too (`::`, IPv6 only), for clients reaching the box
 * at its global IPv6 address.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createSecureContext, type SecureContext } from 'node:tls';

/** What serves the streaming paths on this listener (the social side's streaming slot). */
export interface StreamingDoor {
  /** Serves the request when it is a streaming one and says so. */
  request(req: IncomingMessage, res: ServerResponse): boolean;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export class HttpsListener {
  private context: SecureContext | null = null;
  private servers: Server[] = [];
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly listener: (req: IncomingMessage, res: ServerResponse) => void,
    private readonly host: string,
    private readonly port: number,
    private readonly streaming: StreamingDoor | null = null,
  ) {}

  /** Takes the certificate for the next handshakes; throws when the PEMs do not make a context. */
  useCertificate(chain: string, key: string): void {
    this.context = createSecureContext({ cert: chain, key });
  }

  get hasCertificate(): boolean {
    return this.context !== null;
  }

  get listening(): boolean {
    return this.servers.length > 0;
  }

  async start(): Promise<number> {
    const server = await this.listen(this.host, false);
    this.servers = [server];
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : this.port;
    if (this.host === '0.0.0.0') {
      // A machine without IPv6 keeps its IPv4 listener.
      const v6 = await this.listen('::', true, port).catch(() => null);
      if (v6) this.servers.push(v6);
    }
    return port;
  }

  /** Whether the listener also takes IPv6 connections. */
  get ipv6(): boolean {
    return this.servers.length > 1 || this.host.includes(':');
  }

  private async listen(host: string, ipv6Only: boolean, port = this.port): Promise<Server> {
    const server = createServer(
      {
        SNICallback: (_name, done) =>
          this.context ? done(null, this.context) : done(new Error('no certificate yet'), undefined),
        minVersion: 'TLSv1.2',
      },
      (req, res) => {
        if (!this.streaming?.request(req, res)) this.listener(req, res);
      },
    );
    const streaming = this.streaming;
    if (streaming) server.on('upgrade', (req, socket, head) => streaming.upgrade(req, socket, head));
    server.keepAliveTimeout = 5000;
    server.headersTimeout = 15000;
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    // A client that gives up mid-handshake is its own business.
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host, ipv6Only }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return server;
  }

  async stop(): Promise<void> {
    const servers = this.servers;
    this.servers = [];
    if (!servers.length) return;
    const closed = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    for (const server of servers) server.closeIdleConnections();
    setTimeout(() => {
      for (const socket of this.sockets) socket.destroy();
    }, 2000).unref();
    await closed;
  }
}
