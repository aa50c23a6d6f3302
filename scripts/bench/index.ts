/**
 * npm run bench -- <name> [args]: runs one benchmark. Each prints a table and one JSON line per
 * figure (see stats.ts). Benchmarks talk only to loopback and stop by themselves.
 */
export interface Bench {
  description: string;
  run(args: string[]): Promise<void>;
}

const BENCHES: Record<string, () => Promise<Bench>> = {
  federation: async () => (await import('./federation.js')).default,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || !BENCHES[name]) {
    const list = await Promise.all(Object.entries(BENCHES).map(async ([key, load]) => `  ${key.padEnd(12)} ${(await load()).description}`));
    (name && name !== '--help' ? console.error : console.log)(`Usage: npm run bench -- <name>\n\nBenchmarks:\n${list.join('\n')}`);
    return name && name !== '--help' ? 2 : 0;
  }
  await (await BENCHES[name]!()).run(args);
  return 0;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
