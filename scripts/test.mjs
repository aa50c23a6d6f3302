#!/usr/bin/env node
// `npm test [-- WORD…]`: the Debian packages the tests need, the npm packages, then the lint check
// started before the build (type-aware ESLint needs only the sources and node_modules, and a fresh
// clone's sqlite3 compile keeps one core busy long after TypeScript is done on the other),
// the build itself, and the suites beside the running lint.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSuites, startLint, wantsLint } from './test-suites.mjs';

const scripts = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));

/** Runs a script of ours to its end with its output on ours; a failure ends the test run. */
function step(script, ...args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(scripts, script), ...args], { stdio: 'inherit' });
    child.on('exit', (code, signal) => {
      if (code === 0) return resolve();
      process.stdout.write(`0 passed, 1 failed (${script} ${signal ?? `exit ${code}`})\n`);
      process.exit(1);
    });
  });
}

await step('install-test-packages.mjs');
await step('setup.mjs', '--packages-only');
const lint = wantsLint(filters) ? startLint() : null;
await step('setup.mjs');
process.exit(await runSuites(filters, lint));
