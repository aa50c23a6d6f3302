/** `npm run fuzz -- <name> [--count N] [--seconds S]`: runs one fuzz target of scripts/fuzz/. */
const TARGETS: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  link: () => import('./link.js'),
};

const [name, ...args] = process.argv.slice(2);
const load = name ? TARGETS[name] : undefined;
if (!load) {
  process.stderr.write(
    `Usage: npm run fuzz -- <name> [--count N] [--seconds S] [--seed N]\nTargets: ${Object.keys(TARGETS).join(', ')}\n`,
  );
  process.exit(2);
}
await (await load()).run(args);
