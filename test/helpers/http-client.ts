/**
 * The social harness's HTTP client: node:http on a keep-alive agent. The tests make thousands of
 * API calls and fetch() (undici) spends several times the CPU per call in the test process; what
 * the daemon receives is the same request (no redirects followed, the body as given).
 */
import { Agent, request } from 'node:http';

export interface PlainResponse {
  status: number;
  headers: AnswerHeaders;
  text: string;
}

/**
 * An answer's header fields, read as Headers reads them (any case; a repeated field's values joined
 * with ", "). Not Headers itself: the first one made loads fetch's library (undici) into the test
 * process, a cost each suite would pay though most make no fetch of their own.
 */
export class AnswerHeaders {
  private readonly fields = new Map<string, string[]>();

  /** `raw`: names and values in turn, as node:http gives them (rawHeaders). */
  constructor(raw: readonly string[]) {
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i].toLowerCase();
      const values = this.fields.get(name);
      if (values) values.push(raw[i + 1]);
      else this.fields.set(name, [raw[i + 1]]);
    }
  }

  get(name: string): string | null {
    return this.fields.get(name.toLowerCase())?.join(', ') ?? null;
  }

  has(name: string): boolean {
    return this.fields.has(name.toLowerCase());
  }
}

export interface PlainRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** Below the daemon's 5 s keep-alive, so an idle socket is dropped here before the daemon drops it. */
const agent = new Agent({ keepAlive: true, timeout: 4_000 });

export function send(url: string, init: PlainRequest, retried = false): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { accept: '*/*', ...init.headers };
    const payload = init.body === undefined ? undefined : Buffer.from(init.body);
    if (payload) headers['content-length'] = payload.length;
    const outgoing = request(url, { method: init.method, headers, agent }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        resolve({
          status: incoming.statusCode!,
          headers: new AnswerHeaders(incoming.rawHeaders),
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      // A kept-alive socket the daemon closed as this request went out: nothing reached the daemon.
      if (outgoing.reusedSocket && error.code === 'ECONNRESET' && !retried) resolve(send(url, init, true));
      else reject(error);
    });
    outgoing.end(payload);
  });
}
