/** The coprocessor link as the daemon and the tools open it: transport + client, from a target. */
import type { CoprocTarget } from '../config.js';
import type { Logger } from '../log/logger.js';
import { CoprocClient } from './client.js';
import type { OperationName } from './operations.js';
import type { SimulatorOptions, Simulator } from './sim/index.js';
import { createTransport, type Transport } from './transport/index.js';
import type { BackoffOptions } from './transport/types.js';

export interface OpenLinkOptions extends BackoffOptions {
  log: Logger;
  sim?: SimulatorOptions;
  timeouts?: Partial<Record<OperationName, number>>;
}

export interface CoprocLink {
  client: CoprocClient;
  simulator: Simulator | null;
  /** The transport under the client: a chip reset frees its device through it. */
  transport: Transport;
}

export function openCoprocLink(target: CoprocTarget, options: OpenLinkOptions): CoprocLink {
  const log = options.log.child({ component: 'coproc' });
  const { transport, framing, simulator } = createTransport(target, {
    log,
    minBackoffMs: options.minBackoffMs,
    maxBackoffMs: options.maxBackoffMs,
    sim: options.sim,
  });
  const client = new CoprocClient({ transport, framing, log, timeouts: options.timeouts });
  client.start();
  return { client, simulator, transport };
}

/** Resolves when the link is up (at once if it is), or rejects after `timeoutMs`. */
export function waitForLink(client: CoprocClient, timeoutMs: number): Promise<void> {
  if (client.linkUp) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('link', onLink);
      reject(new Error(`the coprocessor link did not come up within ${timeoutMs / 1000} s (${client.description})`));
    }, timeoutMs);
    const onLink = ({ up }: { up: boolean }) => {
      if (!up) return;
      clearTimeout(timer);
      client.off('link', onLink);
      resolve();
    };
    client.on('link', onLink);
  });
}
