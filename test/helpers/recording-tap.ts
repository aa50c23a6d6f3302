/**
 * A recording reverse proxy on loopback in front of a daemon: the daemon's base URL names the tap,
 * so every request peers make to it (deliveries, fetches) passes through, byte for byte, and the
 * tap keeps each exchange. Tests read what one daemon really sent to another.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TapExchange {
  method: string;
  path: string;
  requestType: string | undefined;
  requestBody: string;
  status: number;
  responseType: string | undefined;
  responseBody: string;
}

export class RecordingTap {
  readonly exchanges: TapExchange[] = [];
  private target = 0;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(): Promise<RecordingTap> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const tap = new RecordingTap(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => tap.forward(req, res));
    return tap;
  }

  /** Where requests go on (the daemon's own port, known once it is chosen). */
  forwardTo(port: number): void {
    this.target = port;
  }

  get host(): string {
    return new URL(this.url).host;
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const requestBody = Buffer.concat(chunks);
      const upstream = http.request(
        { host: '127.0.0.1', port: this.target, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const responseBody = Buffer.concat(parts);
            this.exchanges.push({
              method: req.method ?? '',
              path: req.url ?? '',
              requestType: req.headers['content-type'],
              requestBody: requestBody.toString('utf8'),
              status: answer.statusCode ?? 0,
              responseType: answer.headers['content-type'],
              responseBody: responseBody.toString('utf8'),
            });
            const headers = { ...answer.headers };
            delete headers['transfer-encoding'];
            headers['content-length'] = String(responseBody.length);
            res.writeHead(answer.statusCode ?? 502, headers).end(responseBody);
          });
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(requestBody);
    });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
