#!/usr/bin/env node
// `npm run lint`, and the lint step of a full `npm test`: ESLint (type-aware, zero warnings allowed)
// and `prettier --check`, at the same time; both run so one pass shows every finding. Exits
// non-zero on any finding.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (pkg, file) => join(root, 'node_modules', pkg, 'bin', file);
const steps = [
  ['eslint', [bin('eslint', 'eslint.js'), '--max-warnings', '0', '.']],
  ['prettier --check', [bin('prettier', 'prettier.cjs'), '--check', '--log-level', 'warn', '.']],
];

// Side by side: ESLint's type-aware pass is one long single-threaded job, and Prettier's check
// needs nothing from it.
function run([name, args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      const ok = code === 0;
      const took = ((Date.now() - started) / 1000).toFixed(1);
      resolve({ ok, text: `${output}[lint] ${name}: ${ok ? 'clean' : 'findings'} (${took} s)\n` });
    });
  });
}

// Printed in the steps' order once both ended, so their findings do not interleave.
const results = await Promise.all(steps.map(run));
for (const { text } of results) process.stdout.write(text);
process.exit(results.every(({ ok }) => ok) ? 0 : 1);
