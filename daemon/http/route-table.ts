/**
 * The routes mounted on the server, read from the routers themselves: logged at start-up (debug),
 * so an operator, or a test that must walk every route, sees exactly what the box answers.
 */
export interface RouteEntry {
  method: string;
  path: string;
}

interface RouterLike {
  stack: Array<{ path: unknown; methods: string[] }>;
}

/** Set on middleware that dispatches to a stack of its own (a slot refilled at run time): its routes count too. */
export const NESTED_MIDDLEWARE = Symbol('nested middleware');

export function routeTable(middleware: readonly unknown[]): RouteEntry[] {
  const seen = new Set<string>();
  const table: RouteEntry[] = [];
  const walk = (stack: readonly unknown[]): void => {
    for (const fn of stack) {
      const nested = (fn as { [NESTED_MIDDLEWARE]?: () => readonly unknown[] })[NESTED_MIDDLEWARE];
      if (nested) walk(nested());
      const router = (fn as { router?: RouterLike }).router;
      for (const layer of router?.stack ?? []) {
        if (typeof layer.path !== 'string') continue;
        for (const method of layer.methods) {
          const key = `${method} ${layer.path}`;
          // HEAD is answered by the GET route; a path mounted twice (several routers) counts once.
          if (method === 'HEAD' || seen.has(key)) continue;
          seen.add(key);
          table.push({ method, path: layer.path });
        }
      }
    }
  };
  walk(middleware);
  return table;
}
