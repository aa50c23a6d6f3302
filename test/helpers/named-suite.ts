/**
 * A named uvu suite with what the runner's preloads give the default one: an error in one of its
 * hooks is printed and fails the process (loud-hooks.ts), and a file stopped at its time limit
 * names the test it was in (running-test.ts). uvu's own `suite()` gets neither.
 */
import { suite as uvuSuite, type Context, type Test } from 'uvu';
import { loudHooksOn } from './loud-hooks.js';
import { trackRunningTestOf } from './running-test.js';

export function suite<T = Context>(name: string, context?: T): Test<T> {
  const made = uvuSuite<T>(name, context);
  loudHooksOn(made);
  trackRunningTestOf(made);
  return made;
}
