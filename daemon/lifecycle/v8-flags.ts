/**
 * The launcher's V8 flags (scripts/nestboxd) and Node's built-in modules' code cache. V8 accepts a
 * code cache only when the process's flags hash the same as those it was made with, Node's
 * defaults: with the launcher's two flags every built-in module a start loads (http, net, streams,
 * child_process, …) was compiled from its source instead of read from the cache. `entry.cts` sets
 * both back to V8's defaults before any module loads. The semi-space size is read only when the
 * heap is made, before any code runs, so it keeps the launcher's value; the old generation's
 * growth is read at every full collection, so it is set again once the daemon is ready (built-in
 * modules first loaded after that, such as TLS, compile from source, once).
 */
import { setFlagsFromString } from 'node:v8';

/** The launcher's flags that V8 reads while the daemon runs, given again after READY=1. */
const READ_WHILE_RUNNING = ['--heap-growing-percent='];

/** Gives V8 again the flags of `execArgv` that it reads while running (the launcher's heap growth). */
export function restoreRunningFlags(execArgv: readonly string[] = process.execArgv): string[] {
  const flags = execArgv.filter((arg) => READ_WHILE_RUNNING.some((name) => arg.startsWith(name)));
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}
