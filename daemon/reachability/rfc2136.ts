/**
 * RFC 2136 DNS UPDATE signed with TSIG, for owners who run their own DNS (BIND, Knot, PowerDNS):
 * the box's address record is replaced (the old set deleted, the new one added, in one update)
 * only when the primary does not already serve that address, and the `_acme-challenge` TXT record
 * of DNS-01 is written and removed the same way. The server's answer comes back in plain words.
 */
import { randomInt } from 'node:crypto';
import { isIP, isIPv4, type LookupFunction } from 'node:net';
import type dnsPacket from 'dns-packet';
import { lazy } from '../lib/on-first-use.js';
import type { Rfc2136Settings } from './model.js';
import type { DnsUpdateOutcome } from './dyndns2.js';
import { dnsExchange, type DnsServer } from './dns-exchange.js';
import { readResponseTsig, signMessage, type TsigKey } from './tsig.js';

const OPCODE_UPDATE = 5 << 11;
const TYPE = { A: 1, AAAA: 28, TXT: 16 } as const;
const TTL_S = 60;
/** Loaded when the owner's settings first ask for an update. */
const packets = lazy('RFC 2136 updates (dns-packet)', async () => (await import('dns-packet')).default);

/** RCODEs (RFC 1035, 2136) and TSIG errors (RFC 8945) in plain words; `permanent` waits for new settings. */
const ANSWERS: Record<number, { words: string; permanent: boolean }> = {
  1: { words: 'the DNS server could not read the update (FORMERR)', permanent: true },
  2: { words: 'the DNS server failed to apply the update (SERVFAIL)', permanent: false },
  3: { words: 'the DNS server says the name does not exist (NXDOMAIN)', permanent: true },
  4: { words: 'the DNS server does not take updates (NOTIMP)', permanent: true },
  5: { words: 'the DNS server refused the update: this key may not change this zone (REFUSED)', permanent: true },
  9: {
    words: 'the DNS server is not authoritative for this zone or did not accept the key (NOTAUTH)',
    permanent: true,
  },
  10: { words: 'the name is not inside the zone given (NOTZONE)', permanent: true },
  16: {
    words: 'the DNS server says the signature is wrong: check the key secret and algorithm (BADSIG)',
    permanent: true,
  },
  17: { words: 'the DNS server does not know this key name and algorithm (BADKEY)', permanent: true },
};
const BADTIME = 18;

/**
 * BADTIME: the update was signed at a time the server finds more than the fudge (5 minutes) away
 * from its own clock. Its answer carries its clock, so the owner learns by how much, and which way.
 */
function clockWords(signedAt: number, serverTime: number | null): string {
  const utc = (seconds: number) => `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  if (serverTime === null)
    return "the DNS server refused the update because the box's clock and the server's differ by more than 5 minutes: check the box's time (is it reaching a time server?) (BADTIME)";
  const minutes = Math.round(Math.abs(serverTime - signedAt) / 60);
  return (
    `the DNS server refused the update because the clocks differ by ${minutes} minutes (the box's says ${utc(signedAt)}, ` +
    `the server's ${utc(serverTime)}; at most 5 minutes are allowed): check the box's time (is it reaching a time server?) (BADTIME)`
  );
}

/** An update that failed, as the DNS step shows it. */
function refusal(error: unknown): DnsUpdateOutcome {
  return { ok: false, permanent: error instanceof Rfc2136Error && error.permanent, detail: (error as Error).message };
}

export class Rfc2136Error extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'Rfc2136Error';
  }
}

export interface Rfc2136Options {
  /** Resolves the server's name (the lease's DNS servers). */
  lookup?: LookupFunction;
  timeoutMs?: number;
  nowS?: () => number;
}

/** "ns1.example.org", "192.0.2.1", "192.0.2.1:5353", "[2001:db8::1]:53" → host and port. */
export function parseServer(server: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(server);
  if (bracketed) return { host: bracketed[1], port: Number(bracketed[2] ?? 53) };
  if (isIP(server) === 6) return { host: server, port: 53 };
  const [host, port] = server.split(':');
  return { host, port: Number(port ?? 53) };
}

export class Rfc2136Client {
  /** Updates sent (accepted or not): the tests' and the owner's figure. */
  updatesSent = 0;
  private readonly key: TsigKey;

  constructor(
    private readonly settings: Rfc2136Settings,
    private readonly options: Rfc2136Options = {},
  ) {
    this.key = {
      name: settings.key_name,
      algorithm: settings.key_algorithm,
      secret: Buffer.from(settings.key_secret, 'base64'),
    };
  }

  /** Makes `name` serve `address` (A or AAAA), unless the server already serves exactly that. */
  async publishAddress(name: string, address: string): Promise<DnsUpdateOutcome> {
    const type = isIPv4(address) ? 'A' : 'AAAA';
    try {
      const current = await this.query(name, type).catch(() => null);
      if (current?.length === 1 && current[0] === address)
        return { ok: true, permanent: false, detail: `${this.serverWords()} already serves this address` };
      await this.update(name, TYPE[type], [{ name, type, class: 'IN', ttl: TTL_S, data: address }]);
      return { ok: true, permanent: false, detail: `${this.serverWords()} updated the name` };
    } catch (error) {
      return refusal(error);
    }
  }

  /** Deletes the AAAA rrset at `name` (the box has no IPv6 address now), unless the server serves none. */
  async withdrawIpv6(name: string): Promise<DnsUpdateOutcome> {
    try {
      const current = await this.query(name, 'AAAA').catch(() => null);
      if (current?.length === 0)
        return { ok: true, permanent: false, detail: `${this.serverWords()} already serves no IPv6 address` };
      await this.update(name, TYPE.AAAA, []);
      return { ok: true, permanent: false, detail: `${this.serverWords()} removed the IPv6 address` };
    } catch (error) {
      return refusal(error);
    }
  }

  /** Sets (or with null removes) the TXT record at `name`: DNS-01's `_acme-challenge.<name>`. */
  async setTxt(name: string, value: string | null): Promise<void> {
    await this.update(
      name,
      TYPE.TXT,
      value === null ? [] : [{ name, type: 'TXT', class: 'IN', ttl: TTL_S, data: value }],
    );
  }

  /** What the server itself serves at `name` (unsigned query, no recursion). */
  async query(name: string, type: 'A' | 'AAAA' | 'TXT'): Promise<string[]> {
    const dnsPacket = await packets();
    const answer = dnsPacket.decode(
      await dnsExchange(
        await this.serverAddress(),
        dnsPacket.encode({ id: randomInt(65536), type: 'query', flags: 0, questions: [{ name, type, class: 'IN' }] }),
        this.options.timeoutMs,
      ),
    );
    return (answer.answers ?? [])
      .filter((record) => record.type === type && record.name.toLowerCase() === name.toLowerCase())
      .map((record) => {
        const data = (record as { data: unknown }).data;
        return Array.isArray(data) ? data.map((part) => String(part)).join('') : String(data);
      });
  }

  /** One signed update: the RRset of `type` at `name` deleted, then `records` added. */
  private async update(name: string, type: number, records: dnsPacket.Answer[]): Promise<void> {
    const dnsPacket = await packets();
    const deleteSet = { name, type: `UNKNOWN_${type}`, class: 'ANY', ttl: 0, data: Buffer.alloc(0) };
    const message = dnsPacket.encode({
      id: randomInt(65536),
      type: 'query',
      flags: OPCODE_UPDATE,
      questions: [{ name: this.settings.zone, type: 'SOA', class: 'IN' }],
      authorities: [deleteSet as unknown as dnsPacket.Answer, ...records],
    });
    const signedAt = this.options.nowS?.() ?? Math.floor(Date.now() / 1000);
    const { signed, mac } = signMessage(message, this.key, signedAt);
    this.updatesSent += 1;
    let answer: Buffer;
    try {
      answer = await dnsExchange(await this.serverAddress(), signed, this.options.timeoutMs);
    } catch (error) {
      throw new Rfc2136Error(`${this.serverWords()} could not be reached (${(error as Error).message})`, false);
    }
    const rcode = answer.readUInt16BE(2) & 0xf;
    const tsig = readResponseTsig(answer, this.key, mac);
    const code = tsig && tsig.error !== 0 ? tsig.error : rcode;
    if (code === BADTIME) throw new Rfc2136Error(clockWords(signedAt, tsig?.serverTime ?? null), false);
    if (code !== 0) {
      const known = ANSWERS[code];
      throw new Rfc2136Error(
        known?.words ?? `the DNS server refused the update (code ${code})`,
        known?.permanent ?? false,
      );
    }
    if (!tsig?.verified)
      throw new Rfc2136Error(
        'the DNS server answered without a valid signature of this key: the update is not confirmed',
        false,
      );
  }

  private async serverAddress(): Promise<DnsServer> {
    const { host, port } = parseServer(this.settings.server);
    if (isIP(host) || !this.options.lookup) return { address: host, port };
    const lookup = this.options.lookup;
    const address = await new Promise<string>((resolve, reject) =>
      lookup(host, {}, (error, found) => (error ? reject(error) : resolve(found as string))),
    ).catch((error: NodeJS.ErrnoException) => {
      throw new Rfc2136Error(`the DNS server ${host} could not be looked up (${error.code ?? error.message})`, false);
    });
    return { address, port };
  }

  /** The server as the owner gave it. */
  get server(): string {
    return this.settings.server;
  }

  private serverWords(): string {
    return `the DNS server ${this.settings.server}`;
  }
}
