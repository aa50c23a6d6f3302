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

export function routeTable(middleware: readonly unknown[]): RouteEntry[] {
  const seen = new Set<string>();
  const table: RouteEntry[] = [];
  for (const fn of middleware) {
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
  return table;
}
