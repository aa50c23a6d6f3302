/**
 * Opens the link to the coprocessor (reopening by itself when the device comes and goes) and
 * reports it as the health component `coprocessor`. DeviceState `coprocessor.link` is the
 * connectivity runner's to write, from the same events. Never waits for the device: a missing or
 * silent one leaves the component degraded.
 */
import type { Config, CoprocTarget } from '../config.js';
import type { ComponentHealth } from '../lifecycle/health.js';
import type { Logger } from '../log/logger.js';
import { CoprocError } from './api.js';
import { openCoprocLink, type CoprocLink } from './link.js';

/** How long after the link opens the daemon first asks the coprocessor something. */
const PROBE_DELAY_MS = 1000;
const PROBE_TIMEOUT_MS = 2000;

export interface MonitoredLinkOptions {
  target: CoprocTarget;
  config: Pick<Config, 'coprocTimeScale' | 'simScenario' | 'simFirmware'>;
  log: Logger;
  health: (health: ComponentHealth) => void;
}

export function openMonitoredLink({ target, config, log, health }: MonitoredLinkOptions): {
  link: CoprocLink;
  stop: () => Promise<void> | void;
} {
  const link = openCoprocLink(target, {
    log,
    sim: { timeScale: config.coprocTimeScale, scenario: config.simScenario, firmware: config.simFirmware },
  });
  const client = link.client;
  health({ status: 'starting', detail: `opening ${client.description}` });
  let probe: NodeJS.Timeout | null = null;
  const answered = () => health({ status: 'ok' });
  const silent = () => health({ status: 'degraded', detail: 'the coprocessor does not answer' });
  client.on('link', ({ up, reason }) => {
    if (probe) clearTimeout(probe);
    if (!up) {
      health({ status: 'degraded', detail: `link down${reason ? `: ${reason}` : ''}` });
      return;
    }
    health({ status: 'starting', detail: 'waiting for the coprocessor to answer' });
    // Let a device that is booting announce itself before asking it anything.
    probe = setTimeout(() => {
      client.call('getMode', {}, { timeoutMs: PROBE_TIMEOUT_MS }).then(answered, (error) => {
        if (error instanceof CoprocError && error.kind === 'timeout') silent();
      });
    }, PROBE_DELAY_MS);
  });
  client.on('devInit', answered);
  client.on('answering', ({ answering }) => (answering ? answered() : silent()));
  return {
    link,
    stop: () => {
      if (probe) clearTimeout(probe);
      return client.close();
    },
  };
}
