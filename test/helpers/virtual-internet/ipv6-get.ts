/**
 * A GET from somewhere on the virtual internet over IPv6 only (`ip netns exec NS node ipv6-get.js
 * URL`): the name resolved to its AAAA records alone (the namespace's resolver), TLS checked
 * against the system roots and NODE_EXTRA_CA_CERTS. Prints one JSON line: the status, the address
 * the connection went to and the body, or `{"error": …}`.
 */
import { execFileSync } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { DIST } from '../paths.js';

export interface Ipv6Answer {
  status: number;
  remote: string;
  body: string;
}

/** Runs the GET in `namespace`, trusting `caFile`; throws the client's error. */
export function getOverIpv6(namespace: string, url: string, caFile: string, timeoutMs = 8000): Ipv6Answer {
  const script = join(DIST, 'test', 'helpers', 'virtual-internet', 'ipv6-get.js');
  const out = execFileSync('ip', ['netns', 'exec', namespace, process.execPath, script, url, String(timeoutMs)], {
    encoding: 'utf8',
    env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
    timeout: timeoutMs + 5000,
  });
  const answer = JSON.parse(out.trim().split('\n').pop()!) as Ipv6Answer | { error: string };
  if ('error' in answer) throw new Error(`GET ${url} over IPv6: ${answer.error}`);
  return answer;
}

if (process.argv[1]?.endsWith('ipv6-get.js') && process.argv[2]) {
  const timeout = Number(process.argv[3] ?? 8000);
  const get = process.argv[2].startsWith('https:') ? httpsGet : httpGet;
  const request = get(process.argv[2], { family: 6, timeout, headers: { connection: 'close' } }, (res) => {
    const remote = res.socket.remoteAddress;
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (body += chunk));
    res.on('end', () => {
      process.stdout.write(JSON.stringify({ status: res.statusCode, remote, body }) + '\n');
    });
  });
  request.on('timeout', () => request.destroy(new Error('timed out')));
  request.on('error', (error) => process.stdout.write(JSON.stringify({ error: error.message }) + '\n'));
}
