/**
 * A router passed over when none of its routes can match the request's path. @koa/router tests the
 * path against the regular expression of every route it holds, on every request that reaches it:
 * a public page walks past the API's few hundred routes, an API request past the device side's.
 * The gate reads the literal start of each route's path (everything before its first parameter,
 * wildcard or group) once, and lets through every path that begins with one of them (or equals a
 * route without parameters), whatever the letter case or trailing slashes: it may let through a
 * path the router then does not match, never the other way round. A router passed over leaves on
 * the request what its own dispatch leaves when nothing matches, so `allowedMethods` answers alike.
 */
import type { Context, Middleware, Next } from 'koa';

interface GatedLayer {
  path: unknown;
  methods: string[];
  opts: { end?: boolean; pathAsRegExp?: boolean };
}

interface GatedRouter {
  stack: GatedLayer[];
  opts: { host?: unknown; routerPath?: unknown; sensitive?: boolean };
}

/** What @koa/router's dispatch records on the request (see its `middleware()`). */
interface RouterState {
  matched?: unknown[];
  router?: GatedRouter;
  routeMatched?: boolean;
}

/** Characters that begin something other than a literal in a path-to-regexp path. */
const NOT_LITERAL = /[:*{}()[\]?+!\\]/;

const trimSlashes = (path: string) => path.replace(/\/+$/, '');

/** `middleware` gated when it is a router's dispatch (it carries `.router`); anything else as it is. */
export function gateRouter<T>(middleware: T): T {
  const router = (middleware as { router?: GatedRouter }).router;
  if (!router || typeof middleware !== 'function') return middleware;
  const dispatch = middleware as unknown as (ctx: Context, next: Next) => Promise<unknown>;
  // Read on the first request: every route is registered by the time the server listens.
  let mayMatch: ((path: string) => boolean) | null | undefined;
  const gated: Middleware = (ctx, next): Promise<unknown> => {
    if (mayMatch === undefined) mayMatch = pathGate(router);
    if (mayMatch === null || mayMatch(ctx.path)) return dispatch(ctx, next);
    const state = ctx as unknown as RouterState;
    state.matched ??= [];
    state.router = router;
    state.routeMatched = false;
    return next();
  };
  return Object.assign(gated, { router }) as unknown as T;
}

/** Whether a path may match one of the router's routes; null when the gate cannot tell (never skip). */
export function pathGate(router: GatedRouter): ((path: string) => boolean) | null {
  if (router.opts.host || router.opts.routerPath) return null;
  const fold = router.opts.sensitive ? (path: string) => path : (path: string) => path.toLowerCase();
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const layer of router.stack) {
    // Layers without methods (router.use) run only beside a matching route.
    if (layer.methods.length === 0) continue;
    if (typeof layer.path !== 'string' || layer.opts.pathAsRegExp) return null;
    const path = fold(layer.path);
    const special = path.search(NOT_LITERAL);
    if (special < 0 && layer.opts.end !== false) exact.add(trimSlashes(path));
    else {
      const prefix = trimSlashes(special < 0 ? path : path.slice(0, special));
      if (prefix === '') return null;
      prefixes.push(prefix);
    }
  }
  return (requestPath) => {
    const path = fold(requestPath);
    if (exact.has(trimSlashes(path))) return true;
    for (const prefix of prefixes) if (path.startsWith(prefix)) return true;
    return false;
  };
}
