/**
 * A real authoritative DNS server that takes RFC 2136 updates signed with TSIG: Debian's knotd,
 * with one zone and one update key, on a loopback port or (in the virtual internet) inside a
 * namespace. The zone lives in memory and its journal in a temporary folder; the serial (read
 * with a plain SOA query, or through knotc's control socket when knotd runs in a namespace) tells
 * whether an update changed anything.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { dnsExchange } from '../../daemon/reachability/dns-exchange.js';
import { tempDir } from './paths.js';
import { freePort } from './ports.js';
import { requirePackage } from './system-packages.js';
import { spawnIn } from './virtual-home/process.js';

export const KNOTD = '/usr/sbin/knotd';
const KNOTC = '/usr/sbin/knotc';

export interface KnotOptions {
  zone: string;
  key: { name: string; algorithm: string; secret: string };
  /** Records of the zone file besides SOA and NS ("www A 11.77.1.9"). */
  records?: string[];
  address?: string;
  port?: number;
  /** Run inside this network namespace. */
  namespace?: string;
  /** Where the config and the journal go (a new temporary folder by default). */
  dir?: string;
}

export interface KnotServer {
  address: string;
  port: number;
  /** "address:port", as the box's `server` setting takes it. */
  server: string;
  /** The zone's SOA serial, as the server answers it now. */
  serial(): Promise<number>;
  log(): string;
  stop(): Promise<void>;
}

export async function startKnot(options: KnotOptions): Promise<KnotServer> {
  requirePackage(['knot']);
  const made = options.dir ? null : tempDir('nestbox-knot-');
  const dir = options.dir ?? made!.path;
  const address = options.address ?? '127.0.0.1';
  const port = options.port ?? (await freePort());
  const zone = options.zone.replace(/\.$/, '');
  writeFileSync(
    join(dir, `${zone}.zone`),
    [
      `$ORIGIN ${zone}.`,
      '$TTL 60',
      '@ SOA ns1 hostmaster 1 3600 900 86400 60',
      '@ NS ns1',
      `ns1 A ${address}`,
      ...(options.records ?? []),
      '',
    ].join('\n'),
  );
  const config = join(dir, 'knot.conf');
  writeFileSync(
    config,
    `server:
    rundir: "${dir}"
    listen: ${address}@${port}
log:
  - target: stderr
    any: info
database:
    storage: "${dir}"
key:
  - id: ${options.key.name}
    algorithm: ${options.key.algorithm}
    secret: ${options.key.secret}
acl:
  - id: owner-update
    key: ${options.key.name}
    action: update
zone:
  - domain: ${zone}
    storage: "${dir}"
    file: "${zone}.zone"
    zonefile-sync: -1
    acl: owner-update
`,
  );
  let stderr = '';
  let child: ChildProcess;
  if (options.namespace) {
    const process = spawnIn(options.namespace, KNOTD, ['-c', config]);
    process.onStderrLine((line) => (stderr += `${line}\n`));
    child = process.child;
  } else {
    child = spawn(KNOTD, ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  }
  const serial = async () => {
    // From the test's own namespace a server inside another is out of reach: its control socket is not.
    if (options.namespace) return controlSerial(config, zone);
    const answer = dnsPacket.decode(
      await dnsExchange(
        { address, port },
        dnsPacket.encode({ id: 7, type: 'query', questions: [{ name: zone, type: 'SOA', class: 'IN' }] }),
        500,
      ),
    );
    const soa = answer.answers?.find((record) => record.type === 'SOA');
    if (!soa || soa.type !== 'SOA') throw new Error(`no SOA for ${zone}`);
    return soa.data.serial ?? 0;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    made?.remove();
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await serial();
      break;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`knotd did not serve ${zone}: ${(error as Error).message}\n${stderr.slice(-2000)}`, {
          cause: error,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { address, port, server: `${address}:${port}`, serial, log: () => stderr, stop };
}

/** The zone's serial as knotd holds it, asked through its control socket (knotc zone-read). */
function controlSerial(config: string, zone: string): Promise<number> {
  return new Promise((resolve, reject) =>
    execFile(KNOTC, ['-c', config, 'zone-read', zone, '@', 'SOA'], { timeout: 2000 }, (error, stdout) => {
      // "[zone.] zone. 60 SOA ns1.zone. hostmaster.zone. 7 3600 900 86400 60"
      const serial = /\sSOA\s+\S+\s+\S+\s+(\d+)/.exec(stdout)?.[1];
      if (error || !serial) reject(new Error(`knotc zone-read ${zone}: ${error?.message ?? stdout}`));
      else resolve(Number(serial));
    }),
  );
}
