#!/usr/bin/env node
// Runs every compiled uvu suite (dist/test/**/*.test.js), each in its own process, a few at a time,
// prints each file's output as it finishes, and ends with the plain line "N passed, N failed".
// Arguments filter the files by substring: `npm test -- config store`. A run without a filter (or with
// the word `lint`) also runs scripts/lint.mjs as one more job, first in the queue: ESLint's type-aware
// pass keeps one core busy for a while, and the suites beside it mostly wait on I/O.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const testRoot = join(root, 'dist', 'test');
const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, Math.min(4, cpus().length + 1));
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS) || 180_000;
// Type-aware ESLint over the whole tree is one long single-threaded job; a busy machine stretches it.
const LINT_TIMEOUT_MS = Number(process.env.TEST_LINT_TIMEOUT_MS) || 600_000;
// Makes an error in a before/after hook visible (uvu itself drops it).
const loudHooks = join(testRoot, 'helpers', 'loud-hooks.js');

function findTests(dir) {
  let out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'helpers') continue;
    if (statSync(path).isDirectory()) out = out.concat(findTests(path));
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const files = findTests(testRoot)
  .filter((file) => filters.length === 0 || filters.some((f) => relative(testRoot, file).includes(f)))
  .sort();
const lint = filters.length === 0 || filters.includes('lint');
const LINT = join(root, 'scripts', 'lint.mjs');

function runFile(file) {
  const args = file === LINT ? [LINT] : ['--enable-source-maps', '--import', loudHooks, file];
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const timeoutMs = file === LINT ? LINT_TIMEOUT_MS : FILE_TIMEOUT_MS;
    const timer = setTimeout(() => {
      output += `\n[run-tests] ${relative(root, file)} timed out after ${timeoutMs / 1000} s\n`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ file, code, signal, output, ms: Date.now() - started });
    });
  });
}

// uvu prints "Total: N", "Passed: N" and "Skipped: N" once per process; lint is one check.
function count(result) {
  if (result.file === LINT) return { passed: result.code === 0 ? 1 : 0, failed: result.code === 0 ? 0 : 1, skipped: 0 };
  const number = (label) => {
    const match = new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm').exec(result.output);
    return match ? Number(match[1]) : null;
  };
  const total = number('Total');
  const passed = number('Passed');
  const skipped = number('Skipped') ?? 0;
  if (total === null || passed === null) return { passed: 0, failed: 1, skipped: 0 }; // crashed before its summary
  let failed = total - passed - skipped;
  if (result.code !== 0 && failed === 0) failed = 1; // the process failed after its tests passed
  return { passed, failed, skipped };
}

const queue = lint ? [LINT, ...files] : [...files];
let passed = 0,
  failed = 0,
  skipped = 0;
const failures = [];

async function worker() {
  for (let file = queue.shift(); file; file = queue.shift()) {
    const result = await runFile(file);
    const counts = count(result);
    passed += counts.passed;
    failed += counts.failed;
    skipped += counts.skipped;
    if (counts.failed) failures.push(relative(root, file));
    const name = file === LINT ? 'lint (eslint, prettier --check)' : relative(testRoot, file);
    process.stdout.write(
      `\n── ${name} (${(result.ms / 1000).toFixed(1)} s)${counts.failed ? ' FAILED' : ''}\n${result.output.trimEnd()}\n`,
    );
  }
}

const started = Date.now();
await Promise.all(Array.from({ length: Math.min(concurrency, queue.length || 1) }, worker));
if (files.length === 0 && !lint) {
  process.stdout.write('no test files matched\n');
  failed += 1;
}
if (failures.length) process.stdout.write(`\nFailed files:\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
process.stdout.write(
  `\n${files.length} files${lint ? ' and lint' : ''} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
process.stdout.write(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(failed ? 1 : 0);
