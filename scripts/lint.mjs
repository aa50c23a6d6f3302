#!/usr/bin/env node
// `npm run lint`, and the lint step of a full `npm test`: ESLint (type-aware, zero warnings allowed)
// then `prettier --check`; both run so one pass shows every finding. Exits non-zero on any finding.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (pkg, file) => join(root, 'node_modules', pkg, 'bin', file);
const steps = [
  ['eslint', [bin('eslint', 'eslint.js'), '--max-warnings', '0', '.']],
  ['prettier --check', [bin('prettier', 'prettier.cjs'), '--check', '--log-level', 'warn', '.']],
];

let failed = false;
for (const [name, args] of steps) {
  const started = Date.now();
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  const ok = result.status === 0;
  process.stdout.write(
    `[lint] ${name}: ${ok ? 'clean' : 'findings'} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
  );
  failed ||= !ok;
}
process.exit(failed ? 1 : 0);
