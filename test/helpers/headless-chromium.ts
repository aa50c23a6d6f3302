/** Debian's Chromium, headless, through playwright-core, with a fresh profile: for tests of the web pages. */
import { chromium, type BrowserContext } from 'playwright-core';
import { existsSync } from 'node:fs';
import { tempDir } from './paths.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: install the Debian package chromium (.ci/run does)`);
  const profile = tempDir('nestbox-chromium-');
  try {
    // playwright passes the fresh profile as --user-data-dir itself.
    const context = await chromium.launchPersistentContext(profile.path, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    return { context, async close() { await context.close(); profile.remove(); } };
  } catch (error) {
    profile.remove();
    throw error;
  }
}
