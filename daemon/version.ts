import { readFileSync } from 'node:fs';
import { installPath } from './install-paths.js';

/** The daemon's version, from package.json (two folders above dist/daemon/). */
export const VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(installPath('package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();
