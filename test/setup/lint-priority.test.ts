/**
 * `npm test` starts the lint check yielding to the build (niceness 10, which the processes it
 * starts inherit) and gives it back its normal priority, children included, once the build is
 * done. Only root can give it back, so for anyone else it is never lowered. Driven with a made-up
 * lint script that reports its own niceness and its child's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

const SUITES = pathToFileURL(join(REPO_ROOT, 'scripts', 'test-suites.mjs')).href;

/** Writes `before` once its child runs, waits for `go`, then prints the niceness of both again. */
function lintScript(dir: string): string {
  const path = join(dir, 'lint.mjs');
  writeFileSync(
    path,
    `import { spawn } from 'node:child_process';
     import { existsSync, writeFileSync } from 'node:fs';
     import { getPriority } from 'node:os';
     const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
     const both = () => getPriority() + ' ' + getPriority(child.pid);
     writeFileSync(${JSON.stringify(join(dir, 'before'))}, both());
     while (!existsSync(${JSON.stringify(join(dir, 'go'))})) await new Promise((resolve) => setTimeout(resolve, 20));
     console.log('after ' + both());
     child.kill();\n`,
  );
  return path;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a yielding lint check runs niced with its children until hurry(), then at normal priority', async () => {
  const dir = tempDir('nestbox-lint-priority-');
  try {
    const { startLint } = (await import(SUITES)) as {
      startLint: (
        script: string,
        options: { yielding: boolean },
      ) => Promise<{ code: number; output: string }> & { hurry: () => void };
    };
    const lint = startLint(lintScript(dir.path), { yielding: true });
    const before = join(dir.path, 'before');
    await until(() => existsSync(before) && readFileSync(before, 'utf8') !== '', 'the lint script to start');
    const root = process.getuid?.() === 0;
    assert.is(readFileSync(before, 'utf8'), root ? '10 10' : '0 0');
    lint.hurry();
    writeFileSync(join(dir.path, 'go'), '');
    const { code, output } = await lint;
    assert.is(code, 0);
    assert.match(output, /^after 0 0$/m);
  } finally {
    dir.remove();
  }
});

test.run();
