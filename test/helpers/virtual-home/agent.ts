/**
 * Runs inside one namespace of the virtual home (`ip netns exec NS node agent.js`) and does what a
 * device there would: HTTP requests, DNS queries, an mDNS lookup. One JSON request per stdin line
 * (`{"id":1,"op":"fetch",...}`), one JSON answer per stdout line (`{"id":1,"ok":true,"result":...}`).
 */
import { createSocket } from 'node:dgram';
import { networkInterfaces } from 'node:os';
import { createInterface } from 'node:readline';
import dnsPacket from 'dns-packet';

export type AgentRequest =
  | { op: 'fetch'; url: string; method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number; redirect?: 'follow' | 'manual' }
  | { op: 'dns'; server: string; name: string; port?: number; timeoutMs?: number }
  | { op: 'mdns'; name: string; interfaceAddress?: string; timeoutMs?: number };

export interface FetchResult { status: number; url: string; headers: Record<string, string>; body: string; ms: number }
export interface DnsResult { rcode: string; answers: Array<{ name: string; type: string; data: string }>; ms: number }
export interface MdnsResult { addresses: string[]; from: string; ms: number }

async function doFetch(request: Extract<AgentRequest, { op: 'fetch' }>): Promise<FetchResult> {
  const started = performance.now();
  const response = await fetch(request.url, {
    method: request.method ?? 'GET', headers: request.headers, body: request.body,
    redirect: request.redirect ?? 'follow', signal: AbortSignal.timeout(request.timeoutMs ?? 5000),
  });
  const body = await response.text();
  return { status: response.status, url: response.url, headers: Object.fromEntries(response.headers), body, ms: performance.now() - started };
}

function query(socketType: 'udp4', send: (socket: ReturnType<typeof createSocket>) => void, accept: (packet: dnsPacket.Packet, from: string) => boolean, timeoutMs: number, bindPort = 0, setup?: (socket: ReturnType<typeof createSocket>) => void): Promise<{ packet: dnsPacket.Packet; from: string }> {
  return new Promise((resolve, reject) => {
    const socket = createSocket({ type: socketType, reuseAddr: true });
    const timer = setTimeout(() => { socket.close(); reject(new Error(`no answer within ${timeoutMs} ms`)); }, timeoutMs);
    socket.on('error', (error) => { clearTimeout(timer); socket.close(); reject(error); });
    socket.on('message', (message, rinfo) => {
      let packet: dnsPacket.Packet;
      try { packet = dnsPacket.decode(message); } catch { return; }
      if (!accept(packet, rinfo.address)) return;
      clearTimeout(timer);
      socket.close();
      resolve({ packet, from: rinfo.address });
    });
    socket.bind(bindPort, () => {
      setup?.(socket);
      send(socket);
    });
  });
}

async function doDns(request: Extract<AgentRequest, { op: 'dns' }>): Promise<DnsResult> {
  const started = performance.now();
  const id = Math.floor(Math.random() * 65535);
  const message = dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'A', name: request.name }] });
  const { packet } = await query('udp4', (socket) => socket.send(message, request.port ?? 53, request.server), (packet) => packet.id === id && packet.type === 'response', request.timeoutMs ?? 3000);
  return {
    rcode: (packet as { rcode?: string }).rcode ?? 'NOERROR',
    answers: (packet.answers ?? []).map((answer) => ({ name: answer.name, type: answer.type, data: String((answer as { data?: unknown }).data) })),
    ms: performance.now() - started,
  };
}

/** A one-shot multicast query (RFC 6762 §5.2) on 224.0.0.251:5353 from port 5353, as a resolver on the LAN sends it. */
async function doMdns(request: Extract<AgentRequest, { op: 'mdns' }>): Promise<MdnsResult> {
  const started = performance.now();
  const local = request.interfaceAddress ?? firstAddress();
  const name = request.name.toLowerCase();
  const message = dnsPacket.encode({ type: 'query', id: 0, questions: [{ type: 'A', name: request.name }] });
  const timeoutMs = request.timeoutMs ?? 3000;
  const matches = (packet: dnsPacket.Packet) => (packet.answers ?? []).some((a) => a.type === 'A' && a.name.toLowerCase() === name);
  let resend: NodeJS.Timeout | undefined;
  try {
    const { packet, from } = await query('udp4', (socket) => {
      const send = () => socket.send(message, 5353, '224.0.0.251');
      send();
      // Multicast can be lost like any first packet on a fresh link: ask again, as resolvers do.
      resend = setInterval(send, 1000);
    }, (packet) => packet.type === 'response' && matches(packet), timeoutMs, 5353, (socket) => {
      socket.addMembership('224.0.0.251', local);
      socket.setMulticastInterface(local);
      socket.setMulticastTTL(255);
    });
    const addresses = (packet.answers ?? []).filter((a) => a.type === 'A' && a.name.toLowerCase() === name).map((a) => String((a as { data?: unknown }).data));
    return { addresses, from, ms: performance.now() - started };
  } finally {
    clearInterval(resend);
  }
}

function firstAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  }
  throw new Error('no IPv4 address in this namespace');
}

async function handle(request: AgentRequest): Promise<unknown> {
  switch (request.op) {
    case 'fetch': return doFetch(request);
    case 'dns': return doDns(request);
    case 'mdns': return doMdns(request);
    default: throw new Error(`unknown op ${(request as { op: string }).op}`);
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let id: unknown = null;
  void (async () => {
    try {
      const request = JSON.parse(line) as AgentRequest & { id: unknown };
      id = request.id;
      process.stdout.write(JSON.stringify({ id, ok: true, result: await handle(request) }) + '\n');
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause ? `: ${cause.code ?? ''} ${cause.message ?? ''}`.trimEnd() : '';
      process.stdout.write(JSON.stringify({ id, ok: false, error: (error as Error).message + detail }) + '\n');
    }
  })();
});
process.stdout.write(JSON.stringify({ ready: true }) + '\n');
process.stdin.on('end', () => process.exit(0));
