#!/usr/bin/env node
// Set-up shared by `npm start`, `npm test` and the tools: install the npm dependencies when they
// are missing or older than package-lock.json, then compile TypeScript to dist/ (incremental).
// Plain Node only: this runs before any dependency exists. Its output goes to stderr.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const say = (line) => { if (!quiet) process.stderr.write(`[setup] ${line}\n`); };

function run(command, args) {
  // JOBS lets node-gyp compile sqlite3 on every core.
  const env = { ...process.env, JOBS: process.env.JOBS ?? 'max' };
  const result = spawnSync(command, args, { cwd: root, env, stdio: ['ignore', process.stderr, process.stderr] });
  if (result.status !== 0) {
    process.stderr.write(`[setup] ${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})\n`);
    process.exit(result.status || 1);
  }
}

function mtime(path) {
  try { return statSync(path).mtimeMs; } catch { return 0; }
}

const installed = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
if (!existsSync(installed) || mtime(lock) > mtime(installed)) {
  say('installing npm dependencies (sqlite3 compiles from source: a minute or two)…');
  run('npm', existsSync(lock) ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund']);
}

say('compiling TypeScript…');
run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')]);
