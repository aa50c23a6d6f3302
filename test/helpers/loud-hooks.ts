/**
 * Preloaded by scripts/run-tests.mjs. uvu returns from a `finally` block in its runner, which
 * swallows an error thrown by a before/after hook: the suite just reports "(0 / N)" with no reason.
 * This wraps the default suite's hooks so such an error is printed and fails the process.
 */
import { test } from 'uvu';

type Hook = (context: any) => void | Promise<void>;
type Register = (hook: Hook) => void;

function loud(register: Register, label: string): Register {
  return (hook) => register(async (context) => {
    try {
      await hook(context);
    } catch (error) {
      process.exitCode = 1;
      console.error(`\n✘ ${label} hook failed:`, error);
      throw error;
    }
  });
}

for (const phase of ['before', 'after'] as const) {
  const original = test[phase];
  test[phase] = Object.assign(loud(original, phase), { each: loud(original.each, `${phase}.each`) });
}
