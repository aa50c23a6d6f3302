/**
 * Preloaded by scripts/test-suites.mjs beside loud-hooks: remembers which test of the file's
 * default suite (or of a named suite: named-suite.ts) is running, and when the runner stops a file
 * that outlived its time (SIGTERM), prints that test's name before the process ends. uvu names a
 * failed test only in the report at the end of its run, which a stopped file never reaches.
 */
import { test, type Test } from 'uvu';

let running: { name: string; since: number } | null = null;

/** Remembers `suite`'s running test; its hooks run before those the file registers later. */
export function trackRunningTestOf<T>(suite: Test<T>): void {
  suite.before.each((state) => {
    running = { name: String(state.__test__), since: Date.now() };
  });
  suite.after.each(() => {
    running = null;
  });
}

trackRunningTestOf(test);

process.once('SIGTERM', () => {
  const where = running
    ? `in test "${running.name}" (running ${((Date.now() - running.since) / 1000).toFixed(1)} s)`
    : 'outside any test (in a before or after hook)';
  process.stderr.write(`\n✘ stopped ${where}\n`);
  process.exit(1);
});
