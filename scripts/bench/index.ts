/**
 * `npm run bench -- <name> [options]`: runs one benchmark. Each prints a readable table and one
 * JSON line per figure ({"bench","metric","value",…}) so runs can be compared.
 */
const BENCHES: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  startup: () => import('./startup.js'),
};

const [name, ...args] = process.argv.slice(2);
if (!name || name === '--help' || !(name in BENCHES)) {
  process.stdout.write(`Usage: npm run bench -- <name> [options]\nBenchmarks: ${Object.keys(BENCHES).join(', ')}\n`);
  process.exit(name && name !== '--help' ? 2 : 0);
}
const bench = await BENCHES[name]!();
await bench.run(args);
