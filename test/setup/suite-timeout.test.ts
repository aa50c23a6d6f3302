/**
 * A file that outlives its time is stopped, and its output then names the test it was stuck in
 * (test/helpers/running-test.ts; in a named suite too, test/helpers/named-suite.ts), or says it
 * was stuck outside any test; the run still ends on the plain summary line. The runner is driven
 * on a folder of made-up suites.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { runRunnerOver } from '../helpers/runner-over.js';

// The same module the runner's preload registers its hooks on.
const UVU = pathToFileURL(join(REPO_ROOT, 'node_modules', 'uvu', 'dist', 'index.mjs')).href;
// The compiled helper beside this compiled test.
const NAMED_SUITE = new URL('../helpers/named-suite.js', import.meta.url).href;
// Keeps the process alive, as a test waiting on a daemon that never answers does.
const FOREVER = 'new Promise(() => setInterval(() => {}, 1000))';

/** A made-up suite file `name` whose `test` is uvu's default suite, or `named`'s suite. */
function suite(dir: string, name: string, body: string, named?: string): void {
  const made = named
    ? `import { suite } from ${JSON.stringify(NAMED_SUITE)};\nconst test = suite(${JSON.stringify(named)});`
    : `import { test } from ${JSON.stringify(UVU)};`;
  writeFileSync(join(dir, `${name}.test.js`), `${made}\n${body}\ntest.run();\n`);
  writeFileSync(join(dir, `${name}.test.ts`), '// the source the runner looks for\n');
}

test('a stopped file names the test it was stuck in, or says it was in a hook', async () => {
  const dir = tempDir('nestbox-suite-timeout-');
  try {
    writeFileSync(join(dir.path, 'package.json'), '{ "type": "module" }\n');
    suite(dir.path, 'stuck-test', `test('answers', () => {});\ntest('waits for a reply', () => ${FOREVER});`);
    suite(dir.path, 'stuck-hook', `test.before(() => ${FOREVER});\ntest('never reached', () => {});`);
    suite(
      dir.path,
      'stuck-named',
      `test('is asked', () => {});\ntest('waits in a named suite', () => ${FOREVER});`,
      'repo',
    );
    const { code, output } = await runRunnerOver(dir.path, { env: { TEST_FILE_TIMEOUT_MS: '1500' } });
    assert.is(code, 1);
    assert.match(output, /stuck-test\.test\.js timed out after 1\.5 s/);
    assert.match(output, /✘ stopped in test "waits for a reply" \(running [\d.]+ s\)/);
    assert.not.match(output, /stopped in test "answers"/);
    assert.match(output, /stuck-hook\.test\.js timed out after 1\.5 s\n[\s\S]*✘ stopped outside any test/);
    assert.match(output, /✘ stopped in test "waits in a named suite" \(running [\d.]+ s\)/);
    assert.not.match(output, /stopped in test "is asked"/);
    assert.is(output.trimEnd().split('\n').at(-1), '0 passed, 3 failed');
  } finally {
    dir.remove();
  }
});

test('an error in a before hook is shown and fails the file, in a named suite too', async () => {
  const dir = tempDir('nestbox-suite-hooks-');
  try {
    writeFileSync(join(dir.path, 'package.json'), '{ "type": "module" }\n');
    const failing = (error: string) =>
      `test.before(() => { throw new Error(${JSON.stringify(error)}); });\ntest('reads', () => {});`;
    suite(dir.path, 'default-hook', failing('the default suite: database unreachable'));
    suite(dir.path, 'named-hook', failing('the named suite: database unreachable'), 'repo');
    const { code, output } = await runRunnerOver(dir.path);
    assert.is(code, 1);
    assert.match(output, /✘ before hook failed: Error: the default suite: database unreachable/);
    assert.match(output, /✘ before hook failed: Error: the named suite: database unreachable/);
    assert.is(output.trimEnd().split('\n').at(-1), '0 passed, 2 failed');
  } finally {
    dir.remove();
  }
});

test.run();
