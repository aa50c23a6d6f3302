/**
 * An interrupted test run (Ctrl-C, or SIGTERM from a CI that gives up) ends cleanly: the suites it
 * had going are stopped, a lint check that has already finished is no error, and the last line is
 * still the plain summary. The runner is driven on a folder of made-up suites, one that ends at
 * once and one that would run for a minute.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

const SUITES = pathToFileURL(join(REPO_ROOT, 'scripts', 'test-suites.mjs')).href;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A runner over `dir` with a lint check that passes at once; resolves with its exit code and output. */
function startRunner(dir: string) {
  const script = `
    import { runSuites, startLint, stopOnInterrupt } from ${JSON.stringify(SUITES)};
    stopOnInterrupt();
    const lint = startLint(${JSON.stringify(join(dir, 'lint.mjs'))});
    await lint;
    process.exit(await runSuites([], lint, { tests: ${JSON.stringify(dir)}, sources: ${JSON.stringify(dir)} }));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ended = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, output })),
  );
  return { child, ended };
}

for (const [name, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  test(`${name} stops the running suites and ends on the summary line, after a lint check that had finished`, async () => {
    const dir = tempDir('nestbox-interrupted-');
    try {
      const marker = join(dir.path, 'slow.pid');
      writeFileSync(join(dir.path, 'lint.mjs'), 'process.exit(0);\n');
      writeFileSync(
        join(dir.path, 'slow.test.js'),
        `require('node:fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid)); setTimeout(() => {}, 60000);\n`,
      );
      writeFileSync(join(dir.path, 'slow.test.ts'), '// the source the runner looks for\n');
      const runner = startRunner(dir.path);
      await until(() => existsSync(marker) && readFileSync(marker, 'utf8').length > 0, 'the slow suite to start');
      const suitePid = Number(readFileSync(marker, 'utf8'));
      assert.ok(alive(suitePid), 'the suite runs');
      runner.child.kill(name);
      const { code: exitCode, output } = await runner.ended;
      assert.is(exitCode, code);
      assert.not.match(output, /ESRCH|Error:/);
      assert.is(output.trimEnd().split('\n').at(-1), `0 passed, 1 failed (interrupted by ${name})`);
      await until(() => !alive(suitePid), 'the slow suite to end', 5_000);
    } finally {
      dir.remove();
    }
  });
}

test.run();
