/**
 * The suites named in both-engines.txt run twice, the second time with TEST_ENGINE=postgres, shown
 * as "name (postgres)" and counted in the summary; the others run once, without TEST_ENGINE. The
 * runner is driven on a folder of made-up suites that print the engine they were given.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/paths.js';
import { runRunnerOver } from '../helpers/runner-over.js';

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

test('a listed suite runs on both engines, counted and named apart; an unlisted one runs once; a failure is shown again at the end', async () => {
  const dir = tempDir('nestbox-both-engines-');
  try {
    suite(dir.path, 'listed', true);
    suite(dir.path, 'once', false);
    writeFileSync(join(dir.path, 'both-engines.txt'), '# suites run twice\nlisted.test.ts  # this one\n');
    const { code, output } = await runRunnerOver(dir.path);
    assert.is(code, 1);
    assert.match(output, /── listed\.test\.js \([\d.]+ s[^)]*\)\nlisted engine=none/);
    assert.match(output, /── listed\.test\.js \(postgres\) \([\d.]+ s[^)]*\) FAILED\nlisted engine=postgres/);
    assert.is(output.match(/once engine=/g)?.length, 1);
    assert.match(output, /once engine=none/);
    // A failed suite's output again at the end, where a log cut to its tail still shows why.
    assert.match(
      output,
      /── again, \S*listed\.test\.js \(postgres\) FAILED\nlisted engine=postgres\n[^]*Failed files:/,
    );
    assert.match(output, /Failed files:\n {2}\S*listed\.test\.js \(postgres\)\n\n/);
    assert.is(output.trimEnd().split('\n').at(-1), '5 passed, 1 failed');
  } finally {
    dir.remove();
  }
});

test.run();
