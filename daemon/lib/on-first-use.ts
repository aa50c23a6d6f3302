/**
 * Libraries that only some requests need (remote HTML sanitising, HTTP signatures) are loaded the
 * first time they are used, synchronously, so start-up and a box that never federates do not pay
 * for them in memory and load time.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function onFirstUse<T>(packageName: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(packageName) as T);
}
