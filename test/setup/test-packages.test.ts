/**
 * The Debian packages `npm test` needs: the list, what the first step of `npm test` decides from it
 * (run, install as root, or stop with the command to type), the step itself run as a user without
 * root against a made-up package, and a helper failing at once, naming the package, when its
 * command is missing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { requirePackage, type TestPackage } from '../helpers/system-packages.js';

type Plan =
  { action: 'run' } | { action: 'install'; names: string[]; steps: string[][] } | { action: 'stop'; message: string };
const LIBRARY = join(REPO_ROOT, 'scripts', 'test-packages.mjs');
const packages = (await import(pathToFileURL(LIBRARY).href)) as {
  readPackages(path?: string): TestPackage[];
  parsePackages(text: string): TestPackage[];
  missingPackages(list: TestPackage[], dirs?: string[]): TestPackage[];
  plan(state: { missing: TestPackage[]; root: boolean; aptGet: boolean }): Plan;
};
const STEP = join(REPO_ROOT, 'scripts', 'install-test-packages.mjs');
const MADE_UP = {
  name: 'nestbox-no-such-package',
  commands: ['nestbox-no-such-command'],
  reason: 'made up for this test',
};

test('the list names each package with the commands the tests run from it and why', () => {
  const list = packages.readPackages(join(REPO_ROOT, 'scripts', 'test-packages.txt'));
  const names = list.map((pkg) => pkg.name);
  for (const name of [
    'socat',
    'mosquitto',
    'chromium',
    'systemd',
    'openssl',
    'strace',
    'iproute2',
    'dnsmasq-base',
    'busybox',
    'python3',
  ]) {
    assert.ok(names.includes(name), `${name} is listed`);
  }
  for (const pkg of list) {
    assert.ok(pkg.commands.length > 0, `${pkg.name} names a command`);
    assert.ok(pkg.reason.length > 0, `${pkg.name} says why`);
  }
  assert.equal(list.find((pkg) => pkg.name === 'mosquitto')?.commands, ['mosquitto', 'mosquitto_passwd']);
});

test('a package is missing when one of its commands is not an executable in the search directories, or a file it names is not there', () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir.path, 'present'), '#!/bin/sh\n');
    chmodSync(join(dir.path, 'present'), 0o755);
    writeFileSync(join(dir.path, 'not-executable'), '');
    const list = packages.parsePackages(
      '# comment\nhere  present  it is there\nhalf  present,absent  one of two\nplain  not-executable  a file, not a program\n' +
        `library  ${join(dir.path, 'not-executable')}  a file a package installs\nnolibrary  ${join(dir.path, 'gone.py')}  not there\n`,
    );
    assert.equal(
      packages.missingPackages(list, [dir.path]).map((pkg) => pkg.name),
      ['half', 'plain', 'nolibrary'],
    );
  } finally {
    dir.remove();
  }
});

test('nothing missing: the tests run, with no apt-get at all', () => {
  assert.equal(packages.plan({ missing: [], root: true, aptGet: true }), { action: 'run' });
  assert.equal(packages.plan({ missing: [], root: false, aptGet: false }), { action: 'run' });
});

test('missing as root: apt-get update once, then one install without recommends', () => {
  const other = { name: 'socat', commands: ['socat'], reason: 'PTYs' };
  const next = packages.plan({ missing: [MADE_UP, other], root: true, aptGet: true });
  assert.equal(next, {
    action: 'install',
    names: [MADE_UP.name, 'socat'],
    steps: [
      ['update', '-qq'],
      ['install', '-y', '-qq', '--no-install-recommends', MADE_UP.name, 'socat'],
    ],
  });
});

test('missing without root, or without apt-get: stop with what to do', () => {
  const user = packages.plan({ missing: [MADE_UP], root: false, aptGet: true });
  assert.is(user.action, 'stop');
  assert.match(
    (user as { message: string }).message,
    `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${MADE_UP.name}\n`,
  );
  assert.match((user as { message: string }).message, `${MADE_UP.name}: made up for this test`);
  const elsewhere = packages.plan({ missing: [MADE_UP], root: true, aptGet: false });
  assert.is(elsewhere.action, 'stop');
  assert.match((elsewhere as { message: string }).message, /apt-get is not available here/);
});

/**
 * The first step of `npm test` against the list `text`, as uid 65534 (nobody) when we are root;
 * run from a copy, since nobody may not read a clone under /root.
 */
function runStep(text: string, asNobody: boolean) {
  const dir = tempDir();
  try {
    chmodSync(dir.path, 0o755);
    for (const script of [STEP, LIBRARY]) copyFileSync(script, join(dir.path, basename(script)));
    const list = join(dir.path, 'packages.txt');
    writeFileSync(list, text);
    for (const file of readdirSync(dir.path)) chmodSync(join(dir.path, file), 0o644);
    const nobody =
      asNobody && process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    const [command, ...args] = [...nobody, process.execPath, join(dir.path, basename(STEP))];
    return spawnSync(command, args, {
      cwd: dir.path,
      env: { ...process.env, NESTBOX_TEST_PACKAGES: list },
      encoding: 'utf8',
      timeout: 20_000,
    });
  } finally {
    dir.remove();
  }
}

test("npm test's first step, without root and a package missing, stops with the command to type", () => {
  const result = runStep(
    `${MADE_UP.name}  ${MADE_UP.commands[0]}  ${MADE_UP.reason}\nsh  sh  present everywhere\n`,
    true,
  );
  assert.is(result.status, 1, result.stderr);
  assert.match(result.stderr, `sudo apt-get install -y --no-install-recommends ${MADE_UP.name}\n`);
  assert.not.match(result.stderr, /sh: present everywhere/, 'only the missing package is named');
});

test("npm test's first step with everything there says nothing and succeeds, as root too", () => {
  for (const asNobody of [true, false]) {
    const result = runStep('sh  sh  the shell\n', asNobody);
    assert.is(result.status, 0, result.stderr);
    assert.is(result.stderr, '');
  }
});

test('a helper whose package is missing fails at once, naming the package and the command to install it', () => {
  const empty = tempDir();
  try {
    assert.throws(
      () => requirePackage(['chromium'], [empty.path]),
      (error: Error) =>
        error.message.startsWith("Debian's chromium package is not installed (chromium;") &&
        error.message.includes('sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium ') &&
        error.message.includes('run npm test as root'),
    );
  } finally {
    empty.remove();
  }
  assert.throws(() => requirePackage(['nestbox-unlisted']), /nestbox-unlisted is not in scripts\/test-packages\.txt/);
});

test.run();
