/**
 * Preloaded into a daemon (`NODE_OPTIONS=--import=<this file>`): writes the
 * file of every module the process loaded to MODULE_RECORDER_LOG, one per line. ES modules are
 * seen by a loader hook as they load; CommonJS files (required by packages, or by `onFirstUse`) are
 * read from the CommonJS cache when the process exits.
 */
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const file = process.env.MODULE_RECORDER_LOG;
if (!file) throw new Error('MODULE_RECORDER_LOG is not set');
register(new URL('./module-recorder-hooks.js', import.meta.url), { data: { file } });
process.on('exit', () => {
  const cache = (Module as unknown as { _cache: Record<string, unknown> })._cache;
  appendFileSync(
    file,
    Object.keys(cache)
      .map((path) => `${path}\n`)
      .join(''),
  );
});
