/**
 * Debian's headless Chromium driven by playwright-core (no browser download), with no network
 * traffic of its own. playwright refuses --user-data-dir for launch(): it gives every launch a
 * fresh temporary profile itself, and each test takes a new context on top of it.
 */
import { createRequire } from 'node:module';
import type { Browser, BrowserContext } from 'playwright-core';
import { tempDir } from './paths.js';
import { requirePackage } from './system-packages.js';

/**
 * Required, not imported: an ES import of playwright-core first scans its large CommonJS bundle
 * for export names, in every test process that drives a browser.
 */
const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const LAUNCH = {
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

export function assertInstalled(): void {
  requirePackage(['chromium']);
}

export async function launchChromium(): Promise<{ browser: Browser; close(): Promise<void> }> {
  assertInstalled();
  const browser = await chromium.launch(LAUNCH);
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

/** One browser context on a fresh profile of its own (playwright passes it as --user-data-dir). */
export async function launchChromiumContext(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  assertInstalled();
  const profile = tempDir('nestbox-chromium-');
  try {
    const context = await chromium.launchPersistentContext(profile.path, LAUNCH);
    return {
      context,
      async close() {
        await context.close();
        profile.remove();
      },
    };
  } catch (error) {
    profile.remove();
    throw error;
  }
}
