/**
 * Parts that a start does not need (media processing, Web Push, mail, HTTP signatures, the
 * streaming server's WebSockets, captive DNS packets, ...) are loaded the first time they are
 * used, so start-up and a box that never uses them do not pay for them in load time and memory.
 * `lazy` wraps a dynamic import() for async code; `onFirstUse` requires a CommonJS package for the
 * few synchronous paths (sanitising remote HTML inside rendering). Either way a part that cannot
 * be loaded fails with an error naming it, never a hang; `lazy` tries again on the next call.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export class PartNotLoaded extends Error {
  constructor(
    readonly part: string,
    cause: unknown,
  ) {
    super(`${part} could not be loaded: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'PartNotLoaded';
  }
}

/** `load` run once, on the first call; every later call shares its result. */
export function lazy<T>(part: string, load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | null = null;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = null;
      throw new PartNotLoaded(part, error);
    }));
}

export function onFirstUse<T>(packageName: string): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      try {
        loaded = require(packageName) as T;
      } catch (error) {
        throw new PartNotLoaded(packageName, error);
      }
    }
    return loaded;
  };
}
