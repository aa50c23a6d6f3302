/**
 * HTTP to other servers: every request bounded in time and size, never to a forbidden address
 * (checked on the URL and again on each resolved address), POSTs signed. Built on node:http so
 * the signature library signs the real request and the DNS answer is checked before connecting.
 */
import type { LookupAddress } from 'node:dns';
import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import type https from 'node:https';
import { checkUrl, isPrivateAddress, ForbiddenAddressError, type AddressPolicy } from './address-policy.js';
import { digestHeader, signRequest, type SigningKey } from '../signatures/sign.js';
import { resolvePeerHost, type PeerDnsOptions } from './dns.js';
import { onFirstUse } from '../../../lib/on-first-use.js';

/** TLS is loaded with the first https request, not at every start. */
const loadHttps = onFirstUse<typeof https>('node:https');

export const ACTIVITY_JSON = 'application/activity+json';
export const ACCEPT_ACTIVITY =
  'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

export interface PeerResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export class PeerHttpError extends Error {
  constructor(
    readonly url: string,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
    this.name = 'PeerHttpError';
  }
}

export interface PeerClientOptions extends AddressPolicy {
  timeoutMs?: number;
  maxBytes?: number;
  userAgent: string;
  /** The key GET requests are signed with (the instance actor's); unsigned when absent. */
  fetchKey?: () => Promise<SigningKey>;
  /** How names are resolved (dns.ts): the system's DNS servers unless given. */
  dns?: PeerDnsOptions;
}

const MAX_REDIRECTS = 3;

export class PeerClient {
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  private httpsAgent: https.Agent | null = null;

  constructor(private readonly options: PeerClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxBytes = options.maxBytes ?? 1024 * 1024;
  }

  /** GET a JSON document (following a few redirects, each checked); throws unless 2xx. */
  async getJson(rawUrl: string, accept = ACCEPT_ACTIVITY): Promise<{ url: string; json: unknown }> {
    let url = rawUrl;
    const key = this.options.fetchKey ? await this.options.fetchKey() : undefined;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      const response = await this.request('GET', url, { accept }, undefined, key);
      const location = response.headers.location;
      if (response.status >= 300 && response.status < 400 && location) {
        url = new URL(location, url).toString();
        continue;
      }
      if (response.status < 200 || response.status >= 300)
        throw new PeerHttpError(url, response.status, `GET ${url} answered ${response.status}`);
      try {
        return { url, json: JSON.parse(response.body.toString('utf8')) };
      } catch {
        throw new PeerHttpError(url, response.status, `GET ${url} did not answer JSON`);
      }
    }
    throw new PeerHttpError(rawUrl, null, `GET ${rawUrl}: too many redirects`);
  }

  /**
   * GET a file (media of a peer's post, a web page) of at most `maxBytes`, following a few
   * redirects, each checked by the address policy; unsigned, as media servers expect. Throws
   * unless 2xx.
   */
  async getBytes(
    rawUrl: string,
    maxBytes: number,
    timeoutMs = 60_000,
    accept = '*/*',
  ): Promise<{ url: string; bytes: Buffer; contentType: string | null }> {
    let url = rawUrl;
    for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
      const response = await this.request('GET', url, { accept }, undefined, undefined, maxBytes, timeoutMs);
      const location = response.headers.location;
      if (response.status >= 300 && response.status < 400 && location) {
        url = new URL(location, url).toString();
        continue;
      }
      if (response.status < 200 || response.status >= 300)
        throw new PeerHttpError(url, response.status, `GET ${url} answered ${response.status}`);
      return { url, bytes: response.body, contentType: response.headers['content-type'] ?? null };
    }
    throw new PeerHttpError(rawUrl, null, `GET ${rawUrl}: too many redirects`);
  }

  /**
   * POST `body` unsigned with the caller's headers (Web Push: the payload and VAPID headers come
   * from the push library), under the same address policy, DNS, deadline and size limit as every
   * request to another server; resolves with the response (any status).
   */
  postPlain(url: string, headers: Record<string, string>, body: Buffer): Promise<PeerResponse> {
    return this.request('POST', url, headers, body);
  }

  /** POST an activity, signed by `key`; resolves with the response (any status). */
  post(url: string, body: string, key: SigningKey): Promise<PeerResponse> {
    const bytes = Buffer.from(body, 'utf8');
    return this.request(
      'POST',
      url,
      {
        'content-type': ACTIVITY_JSON,
        digest: digestHeader(bytes),
      },
      bytes,
      key,
    );
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent?.destroy();
  }

  private request(
    method: 'GET' | 'POST',
    rawUrl: string,
    headers: Record<string, string>,
    body?: Buffer,
    key?: SigningKey,
    maxBytes = this.maxBytes,
    timeoutMs = this.timeoutMs,
  ): Promise<PeerResponse> {
    const url = checkUrl(this.options, rawUrl);
    const secure = url.protocol === 'https:';
    const lookup = this.guardedLookup();
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (error: Error) => {
        if (!settled) {
          settled = true;
          request.destroy();
          reject(error);
        }
      };
      const request: ClientRequest = (secure ? loadHttps() : http).request(
        url,
        {
          method,
          agent: secure
            ? (this.httpsAgent ??= new (loadHttps().Agent)({ keepAlive: true, maxSockets: 8 }))
            : this.httpAgent,
          headers: {
            'user-agent': this.options.userAgent,
            ...headers,
            ...(body ? { 'content-length': String(body.length) } : {}),
          },
          lookup,
          timeout: timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes)
              fail(
                new PeerHttpError(
                  url.toString(),
                  response.statusCode ?? null,
                  `${method} ${url.href} answered more than ${maxBytes} bytes`,
                ),
              );
            else chunks.push(chunk);
          });
          response.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(deadline);
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
          });
          response.on('error', fail);
        },
      );
      // One deadline for the whole exchange, not only for idle sockets.
      const deadline = setTimeout(
        () => fail(new PeerHttpError(url.toString(), null, `${method} ${url.href} timed out after ${timeoutMs} ms`)),
        timeoutMs,
      );
      request.on('timeout', () => fail(new PeerHttpError(url.toString(), null, `${method} ${url.href} timed out`)));
      request.on('error', (error) => {
        clearTimeout(deadline);
        fail(error);
      });
      request.on('close', () => clearTimeout(deadline));
      try {
        if (key) signRequest(request, key, body !== undefined);
      } catch (error) {
        clearTimeout(deadline);
        fail(error as Error);
        return;
      }
      request.end(body);
    });
  }

  /** Name resolution (off the thread pool, see dns.ts) that refuses private answers unless they are allowed. */
  private guardedLookup() {
    const { allowPrivate, dns } = this.options;
    return (
      hostname: string,
      options: { family?: number | string; all?: boolean },
      callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      const family =
        options.family === 4 || options.family === 'IPv4'
          ? 4
          : options.family === 6 || options.family === 'IPv6'
            ? 6
            : 0;
      resolvePeerHost(hostname, dns, family).then(
        (list) => {
          if (!allowPrivate && list.some((entry) => isPrivateAddress(entry.address)))
            return callback(new ForbiddenAddressError(hostname), '');
          if (options.all) return callback(null, list);
          callback(null, list[0].address, list[0].family);
        },
        (error: Error) => callback(error, ''),
      );
    };
  }
}
