/**
 * Name resolution for federation (net/dns.ts) against a real DNS server on loopback: answers,
 * unknown names, a server that never answers, and a name resolved while the only thread of
 * libuv's pool is blocked (getaddrinfo, which runs there, would wait for it forever).
 */
import { spawn, execFileSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolvePeerHost } from '../../../daemon/social/federation/net/dns.js';
import { PeerClient } from '../../../daemon/social/federation/net/client.js';
import { ForbiddenAddressError } from '../../../daemon/social/federation/net/address-policy.js';
import { DIST, tempDir } from '../../helpers/paths.js';

const RECORDS: Record<string, { A?: string[]; AAAA?: string[] }> = {
  'peer.test': { A: ['127.0.0.1'], AAAA: ['::1'] },
  'v4only.test': { A: ['127.0.0.2'] },
};

/** A DNS server on loopback that answers from RECORDS (NXDOMAIN otherwise), or never answers when `silent`. */
async function dnsServer(silent = false): Promise<{ server: string; queries: string[]; close(): void }> {
  const socket: Socket = createSocket('udp4');
  const queries: string[] = [];
  socket.on('message', (message, peer) => {
    const query = dnsPacket.decode(message);
    const question = query.questions![0];
    queries.push(`${question.type} ${question.name}`);
    if (silent) return;
    const known = RECORDS[question.name.toLowerCase()];
    const data = question.type === 'A' || question.type === 'AAAA' ? (known?.[question.type] ?? []) : [];
    const reply = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | (known ? 0 : 3),
      questions: query.questions,
      answers: data.map((address) => ({
        type: question.type as 'A',
        name: question.name,
        ttl: 60,
        class: 'IN' as const,
        data: address,
      })),
    });
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { server: `127.0.0.1:${socket.address().port}`, queries, close: () => socket.close() };
}

test('addresses and localhost are answered without asking DNS', async () => {
  const dns = await dnsServer();
  try {
    const options = { servers: [dns.server] };
    assert.equal(await resolvePeerHost('192.0.2.7', options), [{ address: '192.0.2.7', family: 4 }]);
    assert.equal(await resolvePeerHost('2001:db8::1', options), [{ address: '2001:db8::1', family: 6 }]);
    assert.equal(await resolvePeerHost('localhost', options, 4), [{ address: '127.0.0.1', family: 4 }]);
    assert.equal(
      (await resolvePeerHost('Box.localhost.', options)).map((entry) => entry.address),
      ['127.0.0.1', '::1'],
    );
    assert.equal(dns.queries, []);
  } finally {
    dns.close();
  }
});

test('a name gets its A and AAAA records; a family asks only for its own; an unknown name is ENOTFOUND', async () => {
  const dns = await dnsServer();
  try {
    const options = { servers: [dns.server] };
    assert.equal(await resolvePeerHost('peer.test', options), [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    assert.equal(await resolvePeerHost('v4only.test', options), [{ address: '127.0.0.2', family: 4 }]);
    dns.queries.length = 0;
    assert.equal(await resolvePeerHost('peer.test', options, 6), [{ address: '::1', family: 6 }]);
    assert.equal(dns.queries, ['AAAA peer.test']);
    const error = await resolvePeerHost('nowhere.test', options).catch((e: NodeJS.ErrnoException) => e);
    assert.instance(error, Error);
    assert.is((error as NodeJS.ErrnoException).code, 'ENOTFOUND');
  } finally {
    dns.close();
  }
});

test("servers given as a function are read for each name (the station lease's DNS servers)", async () => {
  const first = await dnsServer();
  const second = await dnsServer();
  try {
    let current: string[] | null = [first.server];
    const options = { servers: () => current };
    assert.equal(await resolvePeerHost('v4only.test', options, 4), [{ address: '127.0.0.2', family: 4 }]);
    current = [second.server];
    assert.equal(await resolvePeerHost('v4only.test', options, 4), [{ address: '127.0.0.2', family: 4 }]);
    assert.equal([first.queries, second.queries], [['A v4only.test'], ['A v4only.test']]);
  } finally {
    first.close();
    second.close();
  }
});

test('a DNS server that never answers fails the lookup with ETIMEOUT', async () => {
  const dns = await dnsServer(true);
  try {
    const error = await resolvePeerHost('peer.test', { servers: [dns.server], timeoutMs: 100 }).catch(
      (e: NodeJS.ErrnoException) => e,
    );
    assert.is((error as NodeJS.ErrnoException).code, 'ETIMEOUT');
    assert.ok(dns.queries.includes('A peer.test'));
  } finally {
    dns.close();
  }
});

/**
 * A loopback HTTP peer answering `handler`, the DNS server naming it peer.test, and a peer client
 * using that server: `use` gets the client, the peer's port and the DNS server; all closed after.
 */
async function withNamedPeer(
  allowPrivate: boolean,
  handler: http.RequestListener,
  use: (client: PeerClient, port: number, dns: { queries: string[] }) => Promise<void>,
): Promise<void> {
  const dns = await dnsServer();
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new PeerClient({ allowPrivate, userAgent: 'test', timeoutMs: 5000, dns: { servers: [dns.server] } });
  try {
    await use(client, (server.address() as AddressInfo).port, dns);
  } finally {
    client.close();
    server.close();
    dns.close();
  }
}

test('the peer client connects to a named peer through the given DNS servers', async () => {
  await withNamedPeer(
    true,
    (req, res) => res.end(JSON.stringify({ host: req.headers.host })),
    async (client, port, dns) => {
      const { json } = await client.getJson(`http://peer.test:${port}/x`);
      assert.equal(json, { host: `peer.test:${port}` });
      assert.ok(dns.queries.some((q) => q.endsWith(' peer.test')));
      const error = await client.getJson(`http://nowhere.test:${port}/x`).catch((e: NodeJS.ErrnoException) => e);
      assert.is((error as NodeJS.ErrnoException).code, 'ENOTFOUND');
    },
  );
});

test('without allowPrivate, a public-looking name that resolves to loopback is refused before connecting', async () => {
  let reached = 0;
  await withNamedPeer(
    false,
    (_req, res) => {
      reached += 1;
      res.end('{}');
    },
    async (client, port) => {
      const post = await client
        .postPlain(`https://peer.test:${port}/push`, {}, Buffer.from('x'))
        .catch((e: Error) => e);
      assert.instance(post, ForbiddenAddressError);
      const get = await client.getJson(`https://peer.test:${port}/actor`).catch((e: Error) => e);
      assert.instance(get, ForbiddenAddressError);
    },
  );
  assert.is(reached, 0);
});

test('a name resolves while the only thread of the pool is blocked', async () => {
  const dns = await dnsServer();
  const dir = tempDir();
  try {
    const fifo = join(dir.path, 'held');
    execFileSync('mkfifo', [fifo]);
    // The child's one pool thread sits in a read from a FIFO until the parent writes to it: until
    // then only a resolution that needs no pool thread can finish.
    const script = `
      import { open } from 'node:fs/promises';
      import { resolvePeerHost } from ${JSON.stringify(join(DIST, 'daemon/social/federation/net/dns.js'))};
      const held = await open(process.env.FIFO, 'r+');
      const released = held.read(Buffer.alloc(1), 0, 1, null);
      const addresses = await resolvePeerHost('peer.test', { servers: [process.env.DNS_SERVER] });
      process.stdout.write(JSON.stringify(addresses) + '\\n');
      await released;
      await held.close();`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, UV_THREADPOOL_SIZE: '1', FIFO: fifo, DNS_SERVER: dns.server },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const line = await new Promise<string | null>((resolve) => {
      let out = '';
      // A bound on a hang, not a speed target: getaddrinfo would wait for the pool forever.
      const hung = setTimeout(() => resolve(null), 15_000);
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) {
          clearTimeout(hung);
          resolve(out.trim());
        }
      });
    });
    if (line === null) child.kill('SIGKILL');
    else await writeFile(fifo, 'x');
    await exited;
    assert.ok(line, 'the name was not resolved while the pool was blocked');
    assert.equal(JSON.parse(line), [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
  } finally {
    dns.close();
    dir.remove();
  }
});

test.run();
