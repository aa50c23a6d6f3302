/**
 * Debian's headless Chromium inside a namespace of the virtual home (a phone's browser): playwright
 * starts a wrapper that execs Chromium under `ip netns exec`, so the browser's only network is the
 * namespace's and its pipe to playwright stays the same.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { assertInstalled, CHROMIUM_PATH, LAUNCH } from '../chromium.js';

export interface PhoneBrowser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchPhoneBrowser(namespace: string, dir: string): Promise<PhoneBrowser> {
  assertInstalled();
  const wrapper = join(dir, `chromium-in-${namespace}`);
  writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${namespace} ${CHROMIUM_PATH} "$@"\n`);
  chmodSync(wrapper, 0o755);
  const browser = await chromium.launch({ ...LAUNCH, executablePath: wrapper });
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  return {
    newPage: () => context.newPage(),
    async close() {
      await context.close();
      await browser.close();
    },
  };
}
