/** Opening the coprocessor of the daemon's configuration (or --device), for the command-line tools. */
import { parseCoprocTarget, COPROC_ALLOWED, type Config, type CoprocTarget } from '../../daemon/config.js';
import { openCoprocLink, waitForLink, type CoprocLink } from '../../daemon/coproc/link.js';
import { Logger } from '../../daemon/log/logger.js';
import { fail } from './args.js';

const OPEN_TIMEOUT_MS = 5000;

/** --device when given, else the configuration's `coproc` (NESTBOX_COPROC, as the daemon reads it). */
export function resolveTarget(device: string | undefined, config: Config): CoprocTarget {
  if (device === undefined) {
    if (config.coproc.kind === 'none')
      fail(`NESTBOX_COPROC is none: name a device with --device (${COPROC_ALLOWED})`, 2);
    return config.coproc;
  }
  const target = parseCoprocTarget(device);
  if (!target) fail(`unknown device ${JSON.stringify(device)}: use ${COPROC_ALLOWED}`, 2);
  return target;
}

/**
 * Opens the link; with the built-in simulator (set up as the daemon's: scenario, firmware, time
 * scale), waits for it to boot. Logs go to stderr, at warn unless the configuration says debug.
 */
export async function openDevice(target: CoprocTarget, config: Config): Promise<CoprocLink> {
  const log = new Logger(config.logLevel === 'debug' ? 'debug' : 'warn', {}, (line) =>
    process.stderr.write(line + '\n'),
  );
  const link = openCoprocLink(target, {
    log,
    sim: { timeScale: config.coprocTimeScale, scenario: config.simScenario, firmware: config.simFirmware },
  });
  const booted = link.simulator ? new Promise((resolve) => link.client.once('devInit', resolve)) : null;
  try {
    await waitForLink(link.client, OPEN_TIMEOUT_MS);
    if (booted) await booted;
  } catch (error) {
    await link.client.close();
    fail((error as Error).message);
  }
  return link;
}
