/**
 * The suites named in both-engines.txt run twice, the second time with TEST_ENGINE=postgres, shown
 * as "name (postgres)" and counted in the summary; the others run once, without TEST_ENGINE. The
 * runner is driven on a folder of made-up suites that print the engine they were given.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';

const SUITES = pathToFileURL(join(REPO_ROOT, 'scripts', 'test-suites.mjs')).href;

/** Runs the runner over `dir` without lint; its exit code and output. */
function runOver(dir: string): Promise<{ code: number | null; output: string }> {
  const script = `
    import { runSuites } from ${JSON.stringify(SUITES)};
    process.exit(await runSuites([], null, { tests: ${JSON.stringify(dir)}, sources: ${JSON.stringify(dir)} }));
  `;
  const env = { ...process.env };
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

/** A made-up suite: prints its engine and uvu's summary, and fails on PostgreSQL when `failOnPostgres`. */
function suite(dir: string, name: string, failOnPostgres: boolean): void {
  writeFileSync(
    join(dir, `${name}.test.js`),
    `const engine = process.env.TEST_ENGINE ?? 'none';
     const failed = ${failOnPostgres} && engine === 'postgres';
     console.log('${name} engine=' + engine);
     console.log('  Total:     2\\n  Passed:    ' + (failed ? 1 : 2));
     process.exitCode = failed ? 1 : 0;\n`,
  );
  writeFileSync(join(dir, `${name}.test.ts`), '// the source the runner looks for\n');
}

test('a listed suite runs on both engines, counted and named apart; an unlisted one runs once', async () => {
  const dir = tempDir('nestbox-both-engines-');
  try {
    suite(dir.path, 'listed', true);
    suite(dir.path, 'once', false);
    writeFileSync(join(dir.path, 'both-engines.txt'), '# suites run twice\nlisted.test.ts  # this one\n');
    const { code, output } = await runOver(dir.path);
    assert.is(code, 1);
    assert.match(output, /── listed\.test\.js \([\d.]+ s[^)]*\)\nlisted engine=none/);
    assert.match(output, /── listed\.test\.js \(postgres\) \([\d.]+ s[^)]*\) FAILED\nlisted engine=postgres/);
    assert.is(output.match(/once engine=/g)?.length, 1);
    assert.match(output, /once engine=none/);
    assert.match(output, /Failed files:\n {2}\S*listed\.test\.js \(postgres\)\n\n/);
    assert.is(output.trimEnd().split('\n').at(-1), '5 passed, 1 failed');
  } finally {
    dir.remove();
  }
});

test.run();
