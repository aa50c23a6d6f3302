/**
 * Preloaded into a daemon (`NODE_OPTIONS=--import=<this file>`): writes the
 * file of every module the process loaded to MODULE_RECORDER_LOG, one per line. ES modules are
 * seen by a loader hook as they load; CommonJS files (required by packages, or by `onFirstUse`) are
 * read from the CommonJS cache when the process exits. Node's own modules that the daemon loaded
 * before its HTTP server's first request (the start itself) are written as `builtin:` and the name,
 * as in `builtin:https` (from `process.moduleLoadList`, less what this recorder loaded itself), and
 * CommonJS files first required after that request as `request:` and the path.
 */
import { appendFileSync } from 'node:fs';
import { Server } from 'node:http';
import Module, { register } from 'node:module';

const file = process.env.MODULE_RECORDER_LOG;
if (!file) throw new Error('MODULE_RECORDER_LOG is not set');
register(new URL('./module-recorder-hooks.js', import.meta.url), { data: { file } });

function builtins(): string[] {
  return (process as unknown as { moduleLoadList: string[] }).moduleLoadList
    .filter((entry) => entry.startsWith('NativeModule '))
    .map((entry) => entry.slice('NativeModule '.length));
}

const own = new Set(builtins());
const commonJs = () => Object.keys((Module as unknown as { _cache: Record<string, unknown> })._cache);
let atFirstRequest: { builtins: string[]; commonJs: string[] } | null = null;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the server as `this`
const emit = Server.prototype.emit;
Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
  if (event === 'request') atFirstRequest ??= { builtins: builtins(), commonJs: commonJs() };
  return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
};

process.on('exit', () => {
  const started = (atFirstRequest?.builtins ?? builtins()).filter((name) => !own.has(name));
  // CommonJS files first required by a request: `request:` and the path.
  const before = new Set(atFirstRequest?.commonJs ?? commonJs());
  const lines = [
    ...before,
    ...started.map((name) => `builtin:${name}`),
    ...commonJs()
      .filter((path) => !before.has(path))
      .map((path) => `request:${path}`),
  ];
  appendFileSync(file, lines.map((line) => `${line}\n`).join(''));
});
