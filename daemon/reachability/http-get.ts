/**
 * A bounded GET over node:http(s) with the box's own name resolution and extra trusted roots: what
 * the dynamic-DNS update and the self-check need and global fetch cannot be told.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { trustedContext } from './trusted-roots.js';

export interface HttpGetOptions {
  lookup?: LookupFunction;
  /** Extra roots (PEM) trusted beside the system's. */
  extraCa?: string | null;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** TLS server name when connecting to an address (the self-check). */
  servername?: string;
}

export interface HttpGetAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const MAX_BYTES = 64 * 1024;

export function httpGet(url: string, options: HttpGetOptions = {}): Promise<HttpGetAnswer> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const auth =
    target.username || target.password
      ? `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`
      : undefined;
  target.username = '';
  target.password = '';
  const request = (secure ? https : http).request;
  // Passed on to tls.connect, which takes the context as made.
  const tls: ConnectionOptions = secure
    ? { secureContext: trustedContext(options.extraCa), servername: options.servername }
    : {};
  return new Promise((resolve, reject) => {
    const req = request(
      target,
      {
        method: 'GET',
        auth,
        headers: { 'user-agent': 'Nestbox', ...options.headers },
        lookup: options.lookup,
        ...tls,
        agent: false,
        timeout: options.timeoutMs ?? 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES) req.destroy(new Error('answer too large'));
          else chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end();
  });
}
