/**
 * `npm run bench -- <name> [options]`: runs one benchmark. Each prints a readable table and one
 * JSON line per figure, e.g. {"bench":"mqtt","metric":"change_to_subscriber_p99_ms","value":3.1}.
 */
export interface Bench {
  /** One line for the list shown by `npm run bench`. */
  description: string;
  run(args: string[]): Promise<void>;
}

const BENCHES: Record<string, () => Promise<Bench>> = {
  startup: async () => (await import('./startup.js')).bench,
  link: async () => (await import('./link.js')).bench,
  mqtt: async () => (await import('./mqtt.js')).bench,
  failover: async () => (await import('./failover.js')).bench,
  notifications: async () => (await import('./notifications.js')).bench,
  federation: async () => (await import('./federation.js')).bench,
  api: async () => (await import('./api.js')).apiBench,
  logins: async () => (await import('./logins.js')).bench,
  durability: async () => (await import('./durability.js')).bench,
  network: async () => (await import('./network.js')).bench,
  pages: async () => (await import('./pages.js')).bench,
  reachability: async () => (await import('./reachability.js')).bench,
  'query-floor': async () => (await import('./query-floor.js')).bench,
  move: async () => (await import('./move.js')).bench,
};

async function main(argv: string[]): Promise<void> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h') {
    const lines = await Promise.all(
      Object.entries(BENCHES).map(async ([key, load]) => `  ${key.padEnd(16)} ${(await load()).description}`),
    );
    process.stdout.write(`Usage: npm run bench -- <name> [options]\n\nBenchmarks:\n${lines.join('\n')}\n`);
    return;
  }
  const load = BENCHES[name];
  if (!load) {
    process.stderr.write(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}\n`);
    process.exit(2);
  }
  await (await load()).run(args);
  // Libraries may keep timers or sockets referenced; a benchmark is done when it has reported.
  process.exit(0);
}

await main(process.argv.slice(2));
