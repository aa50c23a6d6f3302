/**
 * The owner's dashboard of an instance without a box (NESTBOX_COPROC=none), in headless Chromium:
 * one line says so, the device's sections (Wi-Fi, setup mode, radio, firmware) are hidden and never
 * asked for, and the instance's own sections are there.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser } from 'playwright-core';
import { assertInstalled, launchChromium } from '../helpers/chromium.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

let h: SocialHarness;
let chromium: { browser: Browser; close(): Promise<void> };

test.before(async () => {
  assertInstalled(); // before the daemon starts: a missing browser must not leave it running
  [h, chromium] = await Promise.all([startSocialDaemon({ NESTBOX_COPROC: 'none' }), launchChromium()]);
  await h.account('boss', { owner: true, scopes: 'read write admin:read admin:write' });
});
test.after(async () => {
  await chromium?.close();
  await h?.stop();
});

test('the dashboard says the instance runs without a box and shows no device section', async () => {
  const token = await h.token('boss', 'admin:read admin:write');
  const context = await chromium.browser.newContext();
  const page = await context.newPage();
  const ownerApiPaths: string[] = [];
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (path.startsWith('/api/nestbox/v1/')) ownerApiPaths.push(path);
  });
  try {
    await page.goto(`${h.url}/dashboard`);
    await page.click('#login summary');
    await page.fill('#token', token);
    await page.click('#token-form button');
    await page.locator('#summary[data-state=no_device]').waitFor({ timeout: 8000 });
    assert.is(await page.locator('#summary').textContent(), 'Running without a box');
    assert.ok(await page.locator('#no-box').isVisible());
    assert.match((await page.locator('#no-box').textContent()) ?? '', /runs without a box/);
    const sections = page.locator('section.device');
    assert.is(await sections.count(), 4);
    for (let index = 0; index < 4; index++) assert.ok(await sections.nth(index).isHidden(), `device section ${index}`);
    assert.ok(await page.locator('#instance').isVisible());
    assert.ok(await page.locator('#family').isVisible());
    const facts = await page.locator('#facts dt').allTextContents();
    assert.equal(facts, ['Connection', 'Storage']);
    await page.locator('#invites').waitFor({ state: 'attached' });
    assert.equal(
      ownerApiPaths.filter((path) => /\/(networks|setup_ap|scan|tx_power|power_save|firmware)\b/.test(path)),
      [],
      'the device routes are never asked',
    );
  } finally {
    await context.close();
  }
});

test('a box still shows its device sections (the same page, another state)', async () => {
  const box = await startSocialDaemon();
  const context = await chromium.browser.newContext();
  const page = await context.newPage();
  try {
    await box.account('boss', { owner: true, scopes: 'admin:read admin:write' });
    const token = await box.token('boss', 'admin:read admin:write');
    await page.goto(`${box.url}/dashboard`);
    await page.click('#login summary');
    await page.fill('#token', token);
    await page.click('#token-form button');
    await page.locator('#ap-ssid', { hasText: /Nestbox/ }).waitFor({ timeout: 8000 });
    assert.ok(await page.locator('#no-box').isHidden());
    for (const id of ['wifi', 'setup', 'radio', 'firmware']) assert.ok(await page.locator(`#${id}`).isVisible(), id);
  } finally {
    await context.close();
    await box.stop();
  }
});

test.run();
