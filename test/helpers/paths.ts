import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file runs from dist/test/helpers/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DIST = join(REPO_ROOT, 'dist');
/**
 * How every test and benchmark starts the daemon: the launcher production uses (sh, so it runs
 * from a fresh clone whatever its file modes), with this Node as its `node`.
 */
export const DAEMON_LAUNCHER = join(REPO_ROOT, 'scripts', 'nestboxd');
export function daemonCommand(args: readonly string[] = []): {
  command: string;
  args: string[];
  env: { NODE: string };
} {
  return { command: '/bin/sh', args: [DAEMON_LAUNCHER, ...args], env: { NODE: process.execPath } };
}

export function tempDir(prefix = 'nestbox-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
