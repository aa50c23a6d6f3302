/**
 * Files the daemon reads from its own installation (web pages, the protobuf schema, helper
 * scripts, its compiled worker), found from the folder that holds package.json. The daemon runs
 * both as compiled modules (dist/daemon/) and as one bundle (dist/bundle/), so no module may
 * count folders up from its own location.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function projectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PROJECT_ROOT = projectRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the installation: `installPath('web', 'setup')`. */
export function installPath(...parts: string[]): string {
  return join(PROJECT_ROOT, ...parts);
}
