/**
 * npm run bench -- <name> [options]: runs one benchmark. Each prints a readable table and one
 * JSON line per figure ({"bench", "metric", "value", …}) so runs can be compared.
 */
const BENCHES: Record<string, () => Promise<{ run(argv: string[]): Promise<void> }>> = {
  failover: () => import('./failover.js'),
};

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || !BENCHES[name]) {
    process.stderr.write(`Usage: npm run bench -- <name> [options]\nBenchmarks: ${Object.keys(BENCHES).join(', ')}\n`);
    process.exit(name && name !== '--help' ? 2 : 0);
  }
  const bench = await BENCHES[name]!();
  await bench.run(rest);
}

await main(process.argv.slice(2));
