/** The connectivity parts' clock: real by default, injected by tests that step time themselves. */
export interface ConnectivityClock {
  now(): number;
  /** Calls `fn` after `ms` (Infinity: never). */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node fires a timer longer than this at once (with a warning); a longer wait is taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timer whose current step can be cancelled: `timer` changes at each step of a long wait (null: never fires). */
interface LongTimer {
  timer: NodeJS.Timeout | null;
}

function longTimeout(fn: () => void, ms: number): LongTimer {
  // No timer at all: one would keep the process alive for nothing.
  if (ms === Infinity) return { timer: null };
  const due = Date.now() + ms;
  const step = (): NodeJS.Timeout => {
    const left = due - Date.now();
    if (left <= MAX_TIMER_MS) return setTimeout(fn, Math.max(0, left));
    return setTimeout(() => {
      handle.timer = step();
    }, MAX_TIMER_MS);
  };
  const handle: LongTimer = { timer: step() };
  return handle;
}

export const realClock: ConnectivityClock = {
  now: () => Date.now(),
  setTimeout: longTimeout,
  clearTimeout: (handle) => clearTimeout((handle as LongTimer).timer ?? undefined),
};
