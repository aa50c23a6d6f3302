/** Loader hooks of module-recorder.ts (they run on the loader's own thread): one line per ES module loaded. */
import { appendFileSync } from 'node:fs';
import type { InitializeHook, LoadHook } from 'node:module';

let file = '';

export const initialize: InitializeHook<{ file: string }> = (data) => {
  file = data.file;
};

export const load: LoadHook = async (url, context, nextLoad) => {
  const result = await nextLoad(url, context);
  if (url.startsWith('file:')) appendFileSync(file, `${url}\n`);
  return result;
};
