// The Debian packages the tests need (scripts/test-packages.txt): which are missing here, and what
// to do about it. Plain Node only: `npm test` reads it before any dependency is installed, and the
// test helpers import it to name the package of a missing command.
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** NESTBOX_TEST_PACKAGES names another list (the set-up's own tests use one with made-up packages). */
export const LIST_PATH =
  process.env.NESTBOX_TEST_PACKAGES || join(dirname(fileURLToPath(import.meta.url)), 'test-packages.txt');

/** Where commands are looked for: PATH, and the sbin directories a non-root PATH often lacks. */
export const SEARCH_DIRS = [
  ...(process.env.PATH ?? '').split(delimiter).filter(Boolean),
  '/usr/local/sbin',
  '/usr/local/bin',
  '/usr/sbin',
  '/usr/bin',
  '/sbin',
  '/bin',
];

/** @typedef {{ name: string, commands: string[], reason: string }} TestPackage */

/** @returns {TestPackage[]} */
export function parsePackages(text) {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [name, commands = '', ...reason] = line.split(/\s+/);
      return { name, commands: commands.split(',').filter(Boolean), reason: reason.join(' ') };
    });
}

export function readPackages(path = LIST_PATH) {
  return parsePackages(readFileSync(path, 'utf8'));
}

/** The command's full path, or null when no search directory has it executable. */
export function findCommand(command, dirs = SEARCH_DIRS) {
  for (const dir of dirs) {
    const path = join(dir, command);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      /* not here */
    }
  }
  return null;
}

/** The packages with at least one command not found. */
export function missingPackages(packages, dirs = SEARCH_DIRS) {
  return packages.filter((pkg) => pkg.commands.some((command) => !present(command, dirs)));
}

/** A command is looked for in `dirs`; an absolute path (a library a package installs) must exist. */
function present(command, dirs) {
  if (!command.startsWith('/')) return findCommand(command, dirs) !== null;
  try {
    accessSync(command, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

export function aptInstallArgs(names) {
  return ['install', '-y', '-qq', '--no-install-recommends', ...names];
}

/** What a person without root types to install `names`. */
export function sudoCommand(names) {
  return `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${names.join(' ')}`;
}

/**
 * What `npm test` does before its tests: nothing when every package is there; as root with
 * apt-get, install the missing ones; otherwise stop with the one command to type.
 * @param {{ missing: TestPackage[], root: boolean, aptGet: boolean }} state
 * @returns {{ action: 'run' } | { action: 'install', names: string[], steps: string[][] } | { action: 'stop', message: string }}
 */
export function plan({ missing, root, aptGet }) {
  if (missing.length === 0) return { action: 'run' };
  const names = missing.map((pkg) => pkg.name);
  if (root && aptGet) return { action: 'install', names, steps: [['update', '-qq'], aptInstallArgs(names)] };
  const what = missing.map((pkg) => `  ${pkg.name}: ${pkg.reason}`).join('\n');
  const how = aptGet
    ? `Install them, then run npm test again:\n  ${sudoCommand(names)}`
    : "apt-get is not available here: install them (or their equivalents) with this system's package manager.";
  return { action: 'stop', message: `The tests need Debian packages that are not installed:\n${what}\n${how}\n` };
}

/** The error a test helper throws when `name`'s commands are missing (without waiting for anything). */
export function missingPackageMessage(pkg) {
  return `Debian's ${pkg.name} package is not installed (${pkg.commands.join(', ')}; ${pkg.reason}): run  ${sudoCommand([pkg.name])}  or run npm test as root, which installs it`;
}
