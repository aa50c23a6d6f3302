/** npm run bench -- <name> [args]: runs one benchmark (see scripts/bench/<name>.ts). */
import { apiBench } from './api.js';

export interface Bench {
  description: string;
  run(args: string[]): Promise<void>;
}

const BENCHES: Record<string, Bench> = {
  api: apiBench,
};

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  const bench = name ? BENCHES[name] : undefined;
  if (!bench) {
    process.stderr.write(`Usage: npm run bench -- <name>\n\n${Object.entries(BENCHES).map(([key, b]) => `  ${key.padEnd(10)} ${b.description}`).join('\n')}\n`);
    return name === '--help' ? 0 : 2;
  }
  await bench.run(args);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
