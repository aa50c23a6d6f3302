/** `--name value`, `--name=value` and bare `--flag` options, plus positional words, for the tools. */
export interface ParsedArgs {
  positional: string[];
  options: Record<string, string | true>;
}

export function parseCliArgs(argv: string[]): ParsedArgs {
  const positional: string[] = [];
  const options: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '--') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) {
      options[arg.slice(2, eq)] = arg.slice(eq + 1);
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      options[arg.slice(2)] = next;
      i++;
    } else options[arg.slice(2)] = true;
  }
  return { positional, options };
}

/** Prints the message on stderr and exits (2: the command line was wrong; 1: it failed). */
export function fail(message: string, code = 1): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

export function takeOption(options: Record<string, string | true>, name: string): string | undefined {
  const value = options[name];
  delete options[name];
  if (value === true) fail(`--${name} needs a value`, 2);
  return value;
}
