/** Opening the coprocessor named by --device or NESTBOX_COPROC, for the command-line tools. */
import { parseCoprocTarget, COPROC_ALLOWED, type CoprocTarget } from '../../daemon/config.js';
import { openCoprocLink, waitForLink, type CoprocLink } from '../../daemon/coproc/link.js';
import { Logger } from '../../daemon/log/logger.js';
import { fail } from './args.js';

const OPEN_TIMEOUT_MS = 5000;

export function resolveTarget(device: string | undefined): CoprocTarget {
  const text = device ?? process.env.NESTBOX_COPROC ?? 'sim';
  const target = parseCoprocTarget(text);
  if (!target) fail(`unknown device ${JSON.stringify(text)}: use ${COPROC_ALLOWED}`, 2);
  return target;
}

/** Opens the link; with the built-in simulator, waits for it to boot. Logs go to stderr at warn. */
export async function openDevice(target: CoprocTarget): Promise<CoprocLink> {
  const log = new Logger(process.env.NESTBOX_LOG_LEVEL === 'debug' ? 'debug' : 'warn', {}, (line) =>
    process.stderr.write(line + '\n'),
  );
  const link = openCoprocLink(target, { log });
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
