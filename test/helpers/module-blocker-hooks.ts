/** Loader hooks of module-blocker.ts: the denied package specifiers fail to resolve. */
import type { InitializeHook, ResolveHook } from 'node:module';

let deny = new Set<string>();

export const initialize: InitializeHook<{ deny: string[] }> = (data) => {
  deny = new Set(data.deny);
};

export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  if (deny.has(specifier))
    throw Object.assign(new Error(`Cannot find package '${specifier}' (blocked by the test)`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
  return nextResolve(specifier, context);
};
