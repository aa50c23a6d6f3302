/**
 * The per-account action limits count in fixed windows aligned to the epoch
 * (daemon/social/ratelimit/limiter.ts), and a window's first action drops the ones before it. A test
 * that counts several actions, or fills a window and then expects a refusal, must not straddle two
 * windows: this gives it one.
 */

/** The current window's start, as the daemon computes it. */
function windowStart(periodMs: number): number {
  return Math.floor(Date.now() / periodMs) * periodMs;
}

/**
 * Waits for the next window when the current one has less than `neededMs` left; resolves with the
 * start of the window the test then runs in.
 */
export async function oneWindowFor(periodMs: number, neededMs: number): Promise<number> {
  const left = periodMs - (Date.now() % periodMs);
  if (left < neededMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
  return windowStart(periodMs);
}
