/** The agent (agent.ts) started inside a namespace, with typed calls. */
import { join } from 'node:path';
import type { AgentRequest, DnsResult, FetchResult, MdnsRecord, MdnsResult } from './agent.js';
import { DIST } from '../paths.js';
import { spawnIn, type NsProcess } from './process.js';

/** A daemon harness request's limit; probes keep the agent's shorter default. */
const HARNESS_REQUEST_TIMEOUT_MS = 30_000;

const AGENT = join(DIST, 'test', 'helpers', 'virtual-home', 'agent.js');

type Op<K extends AgentRequest['op']> = Omit<Extract<AgentRequest, { op: K }>, 'op'>;

export class NamespaceAgent {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  private constructor(
    readonly namespace: string,
    private readonly process: NsProcess,
  ) {
    process.onLine((line) => {
      let message: { id?: number; ok?: boolean; result?: unknown; error?: string };
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      const waiter = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id!);
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(new Error(`${namespace}: ${message.error}`));
    });
    void process.exited.then((code) => {
      for (const waiter of this.pending.values())
        waiter.reject(new Error(`the agent in ${namespace} exited (${code}): ${process.stderr()}`));
      this.pending.clear();
    });
  }

  static async start(namespace: string): Promise<NamespaceAgent> {
    const agent = spawnIn(namespace, process.execPath, [AGENT]);
    await agent.waitForLine((line) => line.includes('"ready"'), 10_000, `the agent in ${namespace}`, true);
    return new NamespaceAgent(namespace, agent);
  }

  private call<T>(request: AgentRequest): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.process.child.stdin!.write(JSON.stringify({ id, ...request }) + '\n');
    });
  }

  fetch(url: string, init: Omit<Op<'fetch'>, 'url'> = {}): Promise<FetchResult> {
    return this.call({ op: 'fetch', url, ...init });
  }

  /**
   * The answer as a WHATWG Response, for code written against fetch(): the daemon harness's requests
   * from inside a namespace. Such a request may wait on the daemon's own work (a federated lookup
   * through the NAT, on a loaded machine), so it gets the time a request outside would, not a probe's.
   */
  async response(url: string, init: RequestInit = {}): Promise<Response> {
    const result = await this.fetch(url, {
      method: init.method,
      headers: init.headers as Record<string, string> | undefined,
      body: init.body as string | undefined,
      timeoutMs: HARNESS_REQUEST_TIMEOUT_MS,
    });
    return new Response([101, 204, 205, 304].includes(result.status) ? null : result.body, {
      status: result.status,
      headers: result.headers,
    });
  }

  dns(server: string, name: string, options: Omit<Op<'dns'>, 'server' | 'name'> = {}): Promise<DnsResult> {
    return this.call({ op: 'dns', server, name, ...options });
  }

  mdns(name: string, options: Omit<Op<'mdns'>, 'name'> = {}): Promise<MdnsResult> {
    return this.call({ op: 'mdns', name, ...options });
  }

  /** Every mDNS response heard for `durationMs` (or until a record as `until` says): one list of records per packet. */
  mdnsListen(durationMs: number, options: Omit<Op<'mdnsListen'>, 'durationMs'> = {}): Promise<MdnsRecord[][]> {
    return this.call({ op: 'mdnsListen', durationMs, ...options });
  }

  async stop(): Promise<void> {
    this.process.child.stdin!.end();
    await this.process.stop(1000);
  }
}
