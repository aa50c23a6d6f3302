/** The test runner (scripts/test-suites.mjs) driven over a folder of made-up suites, for its own tests. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './paths.js';

const SUITES = pathToFileURL(join(REPO_ROOT, 'scripts', 'test-suites.mjs')).href;

/**
 * Runs the runner over `dir` (the compiled suites and their sources both there) without lint,
 * with `env` added and TEST_ENGINE unset; its exit code and output.
 */
export function runRunnerOver(
  dir: string,
  options: { timings?: boolean; env?: Record<string, string> } = {},
): Promise<{ code: number | null; output: string }> {
  const script = `
    import { runSuites } from ${JSON.stringify(SUITES)};
    const layout = { tests: ${JSON.stringify(dir)}, sources: ${JSON.stringify(dir)} };
    process.exit(await runSuites([], null, layout, { timings: ${options.timings ?? false} }));
  `;
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  delete env.TEST_ENGINE;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}
