/**
 * The Debian packages a helper needs, checked before it starts anything: a missing one fails at
 * once, naming the package and the command that installs it, instead of a timeout later. The list
 * is scripts/test-packages.txt, which `npm test` installs from as root.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './paths.js';

export interface TestPackage {
  name: string;
  commands: string[];
  reason: string;
}

interface PackageList {
  readPackages(): TestPackage[];
  missingPackages(packages: TestPackage[], dirs?: string[]): TestPackage[];
  missingPackageMessage(pkg: TestPackage): string;
}

// Plain JavaScript outside the compiled tree: it runs before anything is compiled.
const list = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'test-packages.mjs')).href)) as PackageList;

/** Throws for the first of `names` whose commands are missing (`dirs`: where to look, default PATH and sbin). */
export function requirePackage(names: string[], dirs?: string[]): void {
  const packages = list.readPackages();
  for (const name of names) {
    const pkg = packages.find((entry) => entry.name === name);
    if (!pkg) throw new Error(`${name} is not in scripts/test-packages.txt: add it there so npm test installs it`);
    if (list.missingPackages([pkg], dirs).length > 0) throw new Error(list.missingPackageMessage(pkg));
  }
}
