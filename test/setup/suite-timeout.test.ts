/**
 * A file that outlives its time is stopped, and its output then names the test it was stuck in
 * (test/helpers/running-test.ts), or says it was stuck outside any test; the run still ends on the
 * plain summary line. The runner is driven on a folder of made-up suites.
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
// Keeps the process alive, as a test waiting on a daemon that never answers does.
const FOREVER = 'new Promise(() => setInterval(() => {}, 1000))';

function suite(dir: string, name: string, body: string): void {
  writeFileSync(join(dir, `${name}.test.js`), `import { test } from ${JSON.stringify(UVU)};\n${body}\ntest.run();\n`);
  writeFileSync(join(dir, `${name}.test.ts`), '// the source the runner looks for\n');
}

test('a stopped file names the test it was stuck in, or says it was in a hook', async () => {
  const dir = tempDir('nestbox-suite-timeout-');
  try {
    writeFileSync(join(dir.path, 'package.json'), '{ "type": "module" }\n');
    suite(dir.path, 'stuck-test', `test('answers', () => {});\ntest('waits for a reply', () => ${FOREVER});`);
    suite(dir.path, 'stuck-hook', `test.before(() => ${FOREVER});\ntest('never reached', () => {});`);
    const { code, output } = await runRunnerOver(dir.path, { env: { TEST_FILE_TIMEOUT_MS: '1500' } });
    assert.is(code, 1);
    assert.match(output, /stuck-test\.test\.js timed out after 1\.5 s/);
    assert.match(output, /✘ stopped in test "waits for a reply" \(running [\d.]+ s\)/);
    assert.not.match(output, /stopped in test "answers"/);
    assert.match(output, /stuck-hook\.test\.js timed out after 1\.5 s\n[\s\S]*✘ stopped outside any test/);
    assert.is(output.trimEnd().split('\n').at(-1), '0 passed, 2 failed');
  } finally {
    dir.remove();
  }
});

test.run();
