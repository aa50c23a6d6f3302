/** `npm run bench -- <name>`: runs one benchmark of scripts/bench/. */
const BENCHES: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  link: () => import('./link.js'),
};

const [name, ...args] = process.argv.slice(2);
const load = name ? BENCHES[name] : undefined;
if (!load) {
  process.stderr.write(`Usage: npm run bench -- <name>\nBenchmarks: ${Object.keys(BENCHES).join(', ')}\n`);
  process.exit(2);
}
await (await load()).run(args);
