#!/usr/bin/env node
// First step of `npm test` (and of .ci/run): makes sure the Debian packages in
// scripts/test-packages.txt are there. All present: nothing else runs (no apt-get). Missing, as
// root: `apt-get update` once and one quiet install. Missing otherwise: exit 1 before any test,
// with the command to type. Output goes to stderr.
import { spawnSync } from 'node:child_process';
import { findCommand, missingPackages, plan, readPackages } from './test-packages.mjs';

const say = (text) =>
  process.stderr.write(
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => `[setup] ${line}\n`)
      .join(''),
  );

function apt(args) {
  const result = spawnSync('apt-get', args, {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status === 0) return;
  // Quiet when it works; everything apt-get said when it does not.
  process.stderr.write(
    `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? `${result.error.message}\n` : ''}`,
  );
  say(`apt-get ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
  process.exit(1);
}

const packages = readPackages();
const next = plan({
  missing: missingPackages(packages),
  root: process.getuid?.() === 0,
  aptGet: findCommand('apt-get') !== null,
});
if (next.action === 'stop') {
  say(next.message);
  process.exit(1);
}
if (next.action === 'install') {
  say(`installing the Debian packages the tests need: ${next.names.join(' ')}…`);
  for (const step of next.steps) apt(step);
  const still = missingPackages(packages);
  if (still.length > 0) {
    say(
      `still missing after apt-get install: ${still.map((pkg) => `${pkg.name} (${pkg.commands.join(', ')})`).join(', ')}`,
    );
    process.exit(1);
  }
}
