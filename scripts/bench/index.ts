/**
 * npm run bench -- <name> [options]: runs one benchmark. Each prints a table and one JSON line
 * per figure ({"bench":…,"metric":…,"value":…}). Add a benchmark to BENCHES.
 */
const BENCHES: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  notifications: () => import('./notifications.js'),
};

const [name, ...args] = process.argv.slice(2);
if (!name || name === '--help' || !BENCHES[name]) {
  process.stderr.write(`Usage: npm run bench -- <name> [options]\nBenchmarks: ${Object.keys(BENCHES).join(', ')}\n`);
  process.exit(name === '--help' ? 0 : 2);
}
const bench = await BENCHES[name]!();
await bench.run(args);
