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
  | {
      op: 'fetch';
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      timeoutMs?: number;
      redirect?: 'follow' | 'manual';
    }
  | { op: 'dns'; server: string; name: string; port?: number; timeoutMs?: number }
  | { op: 'mdns'; name: string; type?: 'A' | 'PTR' | 'SRV' | 'TXT'; interfaceAddress?: string; timeoutMs?: number }
  | { op: 'mdnsListen'; durationMs: number; interfaceAddress?: string; until?: MdnsAwaited };

/** A record that ends a listen early: this name (any case), a goodbye (TTL 0) or not, and this data if given. */
export interface MdnsAwaited {
  name: string;
  goodbye: boolean;
  data?: string;
}

export interface FetchResult {
  status: number;
  url: string;
  headers: Record<string, string>;
  body: string;
  ms: number;
}
export interface DnsResult {
  rcode: string;
  answers: Array<{ name: string; type: string; data: string }>;
  ms: number;
}
export interface MdnsResult {
  addresses: string[];
  records: MdnsRecord[];
  from: string;
  ms: number;
}

async function doFetch(request: Extract<AgentRequest, { op: 'fetch' }>): Promise<FetchResult> {
  const started = performance.now();
  // A new connection for every request: between runs the box's listeners and addresses go and
  // come back, and a kept-alive connection to the one that went fails with a reset.
  const response = await fetch(request.url, {
    method: request.method ?? 'GET',
    headers: { connection: 'close', ...request.headers },
    body: request.body,
    redirect: request.redirect ?? 'follow',
    signal: AbortSignal.timeout(request.timeoutMs ?? 5000),
  });
  const body = await response.text();
  return {
    status: response.status,
    url: response.url,
    headers: Object.fromEntries(response.headers),
    body,
    ms: performance.now() - started,
  };
}

/** One unicast DNS query and its answer (the response with the query's id). */
function query(
  server: string,
  port: number,
  message: Buffer,
  id: number,
  timeoutMs: number,
): Promise<dnsPacket.Packet> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('error', (error) => {
      clearTimeout(timer);
      socket.close();
      reject(error);
    });
    socket.on('message', (raw) => {
      let packet: dnsPacket.Packet;
      try {
        packet = dnsPacket.decode(raw);
      } catch {
        return;
      }
      if (packet.id !== id || packet.type !== 'response') return;
      clearTimeout(timer);
      socket.close();
      resolve(packet);
    });
    socket.send(message, port, server);
  });
}

async function doDns(request: Extract<AgentRequest, { op: 'dns' }>): Promise<DnsResult> {
  const started = performance.now();
  const id = Math.floor(Math.random() * 65535);
  const message = dnsPacket.encode({
    type: 'query',
    id,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: 'A', name: request.name }],
  });
  const packet = await query(request.server, request.port ?? 53, message, id, request.timeoutMs ?? 3000);
  return {
    rcode: (packet as { rcode?: string }).rcode ?? 'NOERROR',
    answers: (packet.answers ?? []).map((answer) => ({
      name: answer.name,
      type: answer.type,
      data: String((answer as { data?: unknown }).data),
    })),
    ms: performance.now() - started,
  };
}

/** A record of an mDNS answer, its data as text (SRV and TXT as JSON). */
export interface MdnsRecord {
  name: string;
  type: string;
  ttl: number;
  data: string;
}

function records(packet: dnsPacket.Packet): MdnsRecord[] {
  return [...(packet.answers ?? []), ...(packet.additionals ?? [])].map((record) => {
    const data = (record as { data?: unknown }).data;
    const text = Buffer.isBuffer(data)
      ? data.toString()
      : Array.isArray(data)
        ? JSON.stringify(data.map((d) => (Buffer.isBuffer(d) ? d.toString() : d)))
        : typeof data === 'object'
          ? JSON.stringify(data)
          : `${data as string}`;
    return { name: record.name, type: record.type, ttl: (record as { ttl?: number }).ttl ?? 0, data: text };
  });
}

/** A socket on 5353 that joined 224.0.0.251 on the namespace's interface, as a resolver on the LAN has. */
function mdnsSocket(local: string): Promise<ReturnType<typeof createSocket>> {
  return new Promise((resolve, reject) => {
    const socket = createSocket({ type: 'udp4', reuseAddr: true });
    socket.once('error', reject);
    socket.bind(5353, () => {
      socket.addMembership('224.0.0.251', local);
      socket.setMulticastInterface(local);
      socket.setMulticastTTL(255);
      resolve(socket);
    });
  });
}

/** A multicast query (RFC 6762 §5.2) for `name`, asked again each second until an answer names it. */
async function doMdns(request: Extract<AgentRequest, { op: 'mdns' }>): Promise<MdnsResult> {
  const started = performance.now();
  const socket = await mdnsSocket(request.interfaceAddress ?? firstAddress());
  const name = request.name.toLowerCase();
  const type = request.type ?? 'A';
  const message = dnsPacket.encode({ type: 'query', id: 0, questions: [{ type, name: request.name }] });
  try {
    return await new Promise<MdnsResult>((resolve, reject) => {
      const send = () => socket.send(message, 5353, '224.0.0.251');
      // Multicast can be lost like any first packet on a fresh link: ask again, as resolvers do.
      const resend = setInterval(send, 1000);
      const timer = setTimeout(() => {
        clearInterval(resend);
        reject(new Error(`no mDNS answer for ${request.name} within ${request.timeoutMs ?? 3000} ms`));
      }, request.timeoutMs ?? 3000);
      socket.on('message', (raw, rinfo) => {
        let packet: dnsPacket.Packet;
        try {
          packet = dnsPacket.decode(raw);
        } catch {
          return;
        }
        if (packet.type !== 'response') return;
        const found = records(packet);
        if (!found.some((r) => r.type === type && r.name.toLowerCase() === name && r.ttl > 0)) return;
        clearInterval(resend);
        clearTimeout(timer);
        const addresses = found.filter((r) => r.type === 'A' && r.name.toLowerCase() === name).map((r) => r.data);
        resolve({ addresses, records: found, from: rinfo.address, ms: performance.now() - started });
      });
      send();
    });
  } finally {
    socket.close();
  }
}

/**
 * Every mDNS response heard for `durationMs` (announcements, goodbyes), without asking; with
 * `until`, only until the packet that holds such a record.
 */
async function doMdnsListen(request: Extract<AgentRequest, { op: 'mdnsListen' }>): Promise<MdnsRecord[][]> {
  const socket = await mdnsSocket(request.interfaceAddress ?? firstAddress());
  const heard: MdnsRecord[][] = [];
  let done: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    done = resolve;
    setTimeout(resolve, request.durationMs);
  });
  socket.on('message', (raw) => {
    let packet: dnsPacket.Packet;
    try {
      packet = dnsPacket.decode(raw);
    } catch {
      return; // not DNS
    }
    if (packet.type !== 'response') return;
    const got = records(packet);
    heard.push(got);
    if (request.until && got.some((record) => isAwaited(record, request.until!))) done();
  });
  await ended;
  socket.close();
  return heard;
}

function isAwaited(record: MdnsRecord, awaited: MdnsAwaited): boolean {
  return (
    record.name.toLowerCase() === awaited.name.toLowerCase() &&
    (record.ttl === 0) === awaited.goodbye &&
    (awaited.data === undefined || record.data === awaited.data)
  );
}

function firstAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  }
  throw new Error('no IPv4 address in this namespace');
}

async function handle(request: AgentRequest): Promise<unknown> {
  switch (request.op) {
    case 'fetch':
      return doFetch(request);
    case 'dns':
      return doDns(request);
    case 'mdns':
      return doMdns(request);
    case 'mdnsListen':
      return doMdnsListen(request);
    default:
      throw new Error(`unknown op ${(request as { op: string }).op}`);
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
