/** Steps the virtual-home story tests share: waiting on a probe, and rebooting the simulated chip. */
import * as assert from 'uvu/assert';
import { inspect } from 'node:util';
import { BOX_IFACES } from './driver-links.js';
import type { TimelineEntry, VirtualHome } from './index.js';

/** Polls `probe` until it gives a value (not undefined or false); the error names the home's timeline. */
export async function until<T>(
  home: VirtualHome,
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not within ${timeoutMs} ms${lastError ? ` (${lastError instanceof Error ? lastError.message : inspect(lastError)})` : ''}; timeline: ${home.describeTimeline()}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The chip reboots (the simulator's reset) and the driver makes both interfaces again, bare. */
export async function rebootChip(home: VirtualHome): Promise<{ rebooted: TimelineEntry; recreated: TimelineEntry }> {
  const before = await home.links.boxLink(BOX_IFACES.ap);
  const rebooted = home.mark('chip_reboot');
  await home.simCommand('reset');
  const recreated = await home.waitFor('interfaces_recreated', 15_000, rebooted.at);
  assert.is.not(recreated.detail?.ap, before.ifindex, 'a new ethap0');
  return { rebooted, recreated };
}
