/**
 * The runner starts the suites that took longest in the last recorded run first, and one it has no
 * figure for before them (a second run on PostgreSQL counts as its SQLite run); `--timings` prints each suite's CPU and wall seconds and records them in
 * suite-times.txt, keeping the lines of suites it did not run. Driven on a folder of made-up suites.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/paths.js';
import { runRunnerOver } from '../helpers/runner-over.js';

/** The runner over `dir`, one suite at a time so that the order shows. */
function runOver(dir: string, timings: boolean) {
  return runRunnerOver(dir, { timings, env: { TEST_CONCURRENCY: '1' } });
}

/** A made-up suite that prints its name and uvu's summary. */
function suite(dir: string, name: string): void {
  writeFileSync(
    join(dir, `${name}.test.js`),
    `console.log('ran ${name} ' + (process.env.TEST_ENGINE ?? 'sqlite'));\nconsole.log('  Total:     1\\n  Passed:    1');\n`,
  );
  writeFileSync(join(dir, `${name}.test.ts`), '// the source the runner looks for\n');
}

const TIMES = `# last recorded
   1.0    0.5  short.test.js
  50.0   20.0  long.test.js
   9.0    3.0  middle.test.js
  30.0      -  gone.test.js
`;

test('the longest suites of the last record start first, a suite it does not name before them, a PostgreSQL run it does not name as its SQLite run', async () => {
  const dir = tempDir('nestbox-suite-times-');
  try {
    for (const name of ['short', 'middle', 'long', 'unnamed']) suite(dir.path, name);
    writeFileSync(join(dir.path, 'suite-times.txt'), TIMES);
    writeFileSync(join(dir.path, 'both-engines.txt'), 'middle.test.ts\n');
    const { code, output } = await runOver(dir.path, false);
    assert.is(code, 0);
    assert.equal(output.match(/^ran \w+ \w+/gm), [
      'ran unnamed sqlite',
      'ran long sqlite',
      'ran middle sqlite',
      'ran middle postgres',
      'ran short sqlite',
    ]);
    assert.not.match(output, /Timings/);
    assert.is(readFileSync(join(dir.path, 'suite-times.txt'), 'utf8'), TIMES, 'left as it was');
  } finally {
    dir.remove();
  }
});

test('--timings prints CPU and wall per suite and records them, keeping the suites not run', async () => {
  const dir = tempDir('nestbox-suite-times-');
  try {
    for (const name of ['short', 'unnamed']) suite(dir.path, name);
    writeFileSync(join(dir.path, 'suite-times.txt'), TIMES);
    const { code, output } = await runOver(dir.path, true);
    assert.is(code, 0);
    const table = output.slice(output.indexOf('Timings (seconds)'));
    assert.match(table, /^\s+CPU\s+wall {2}suite$/m);
    for (const name of ['short', 'unnamed'])
      assert.match(table, new RegExp(`^\\s+[\\d.]+\\s+[\\d.]+  ${name}\\.test\\.js$`, 'm'));
    assert.match(table, /^\s+[\d.]+\s+[\d.]+ {2}2 suite runs$/m);
    const recorded = readFileSync(join(dir.path, 'suite-times.txt'), 'utf8');
    const names = recorded.match(/^\s+[\d.]+\s+(?:[\d.]+|-)\s+(\S+)$/gm)?.map((line) => line.trim().split(/\s+/)[2]);
    assert.equal(
      names?.slice(0, 3),
      ['long.test.js', 'gone.test.js', 'middle.test.js'],
      'the old figures kept, longest first',
    );
    assert.equal(names?.slice(3).sort(), ['short.test.js', 'unnamed.test.js']);
    assert.not.match(recorded, /^\s+1\.0\s+0\.5 {2}short/m, "short's figure replaced");
    assert.match(recorded, /^\s+[\d.]+\s+[\d.]+ {2}unnamed\.test\.js$/m);
  } finally {
    dir.remove();
  }
});

test.run();
