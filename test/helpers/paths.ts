import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file runs from dist/test/helpers/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const DIST = join(REPO_ROOT, 'dist');
export const DAEMON_MAIN = join(DIST, 'daemon', 'entry.cjs');

export function tempDir(prefix = 'nestbox-test-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
