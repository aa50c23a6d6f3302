#!/usr/bin/env node
// Set-up shared by `npm start`, `npm test` and the tools: install the npm dependencies when they
// are missing or older than package-lock.json (only that with --packages-only), compile TypeScript
// to dist/ (incremental), then bundle the daemon into dist/bundle/ (scripts/bundle.mjs).
// Plain Node only: this runs before any dependency exists. Its output goes to stderr.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const say = (line) => {
  if (!quiet) process.stderr.write(`[setup] ${line}\n`);
};

function env() {
  // JOBS lets node-gyp compile on every core.
  return { ...process.env, JOBS: process.env.JOBS ?? 'max' };
}

function failed(command, args, status) {
  process.stderr.write(`[setup] ${command} ${args.join(' ')} failed (exit ${status})\n`);
  process.exit(typeof status === 'number' && status !== 0 ? status : 1);
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, env: env(), stdio: ['ignore', process.stderr, process.stderr] });
  if (result.status !== 0) failed(command, args, result.status ?? result.signal);
}

/** Starts `command` and returns a promise of its end (exits the set-up if it fails). */
function start(command, args) {
  const child = spawn(command, args, { cwd: root, env: env(), stdio: ['ignore', process.stderr, process.stderr] });
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => (code === 0 ? resolve() : failed(command, args, code ?? signal))),
  );
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

const tsc = [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')];
const installed = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
/** The native addons npm builds from source: SQLite's, and unix-dgram's (systemd notifications). */
const nativeBindings = [
  join(root, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'),
  join(root, 'node_modules', 'unix-dgram', 'build', 'Release', 'unix_dgram.node'),
];
const installNeeded = !existsSync(installed) || mtime(lock) > mtime(installed);
if (installNeeded) {
  // Packages first, without their build scripts; then the native builds (sqlite3 compiles from
  // source, one long compile on one core) run while TypeScript compiles on the other.
  say('installing npm dependencies…');
  run('npm', [existsSync(lock) ? 'ci' : 'install', '--ignore-scripts', '--no-audit', '--no-fund']);
}
// `npm test` starts its lint check between the packages and the build.
if (process.argv.includes('--packages-only')) process.exit(0);
if (installNeeded || !nativeBindings.every((binding) => existsSync(binding))) {
  // Also after a build that was interrupted: the packages are there, a binding is not.
  say('building native modules (sqlite3 compiles from source: a minute or two) while TypeScript compiles…');
  const natives = start('npm', ['rebuild', '--no-audit', '--no-fund']);
  run(process.execPath, tsc);
  await natives;
} else {
  say('compiling TypeScript…');
  run(process.execPath, tsc);
}
run(process.execPath, [join(root, 'scripts', 'bundle.mjs')]);
