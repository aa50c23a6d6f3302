#!/usr/bin/env node
// `npm test [-- WORD…]`: the Debian packages the tests need, the npm packages, then the lint check
// started before the build (type-aware ESLint needs only the sources and node_modules, and a fresh
// clone's sqlite3 compile keeps one core busy long after TypeScript is done on the other) at a
// lower priority than the build, which the suites wait for; the build itself; and the suites
// beside the running lint, back at its normal priority.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSuites, startLint, stopOnInterrupt, wantsLint } from './test-suites.mjs';

const scripts = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));

let lint = null;

/** Runs a script of ours to its end with its output on ours; a failure ends the test run (and the lint begun). */
function step(script, ...args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(scripts, script), ...args], { stdio: 'inherit' });
    child.on('exit', (code, signal) => {
      if (code === 0) return resolve();
      lint?.stop();
      process.stdout.write(`0 passed, 1 failed (${script} ${signal ?? `exit ${code}`})\n`);
      process.exit(1);
    });
  });
}

stopOnInterrupt();

await step('install-test-packages.mjs');
await step('setup.mjs', '--packages-only');
if (wantsLint(filters)) lint = startLint(undefined, { yielding: true });
await step('setup.mjs');
lint?.hurry();
process.exit(await runSuites(filters, lint, undefined, { timings: process.argv.includes('--timings') }));
