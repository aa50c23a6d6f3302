/**
 * Preloaded by scripts/test-suites.mjs. uvu returns from a `finally` block in its runner, which
 * swallows an error thrown by a before/after hook: the suite just reports "(0 / N)" with no reason.
 * This wraps the default suite's hooks (and a named suite's: named-suite.ts) so such an error is
 * printed and fails the process. After a failed `before`, what it had already started (a daemon
 * beside a browser that could not launch) may be beyond the `after` hook's reach and keep the
 * process alive: it then ends a little later.
 */
import { test, type Test } from 'uvu';

type Hook = (context: any) => void | Promise<void>;

/** Time left for the `after` hooks and uvu's summary once a `before` hook failed. */
const GRACE_AFTER_FAILED_BEFORE_MS = 10_000;

function endSoon(): void {
  // Unref'd: fires only if something the failed hook started still keeps the process alive.
  setTimeout(() => {
    console.error(`\n✘ still running ${GRACE_AFTER_FAILED_BEFORE_MS / 1000} s after a failed before hook: exiting`);
    process.exit(1);
  }, GRACE_AFTER_FAILED_BEFORE_MS).unref();
}

type Register = (hook: Hook) => void;

function loud(register: Register, label: string): Register {
  return (hook) =>
    register(async (context) => {
      try {
        await hook(context);
      } catch (error) {
        process.exitCode = 1;
        console.error(`\n✘ ${label} hook failed:`, error);
        if (label === 'before') endSoon();
        throw error;
      }
    });
}

/** Makes an error in `suite`'s before/after hooks, registered from now on, print and fail the process. */
export function loudHooksOn<T>(suite: Test<T>): void {
  for (const phase of ['before', 'after'] as const) {
    const original = suite[phase];
    suite[phase] = Object.assign(loud(original as Register, phase), {
      each: loud((hook) => original.each(hook), `${phase}.each`),
    });
  }
}

loudHooksOn(test);
