/**
 * The whole first run as a new owner with a phone, in headless Chromium at phone size, on a real
 * daemon over its simulated coprocessor: the label's QR code read from its pixels (the setup
 * network it joins), the setup portal, the owner account made with the label's key, the instance
 * named, an invite link used by a second person on their own phone, and the refusals (a wrong key,
 * a used invite, a second owner). With NESTBOX_UPDATE_SCREENSHOTS=1 each step is a screenshot in
 * docs/screenshots/ (the README's "Setting up" walks through them); nothing else reads them.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { SIM_NETWORKS } from '../../daemon/coproc/sim/world.js';
import { runAdmin } from '../helpers/admin-cli.js';
import { launchChromium } from '../helpers/chromium.js';
import { REPO_ROOT, tempDir } from '../helpers/paths.js';
import { decodeQrPng } from '../helpers/qr.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

const SHOTS = process.env.NESTBOX_UPDATE_SCREENSHOTS === '1' ? join(REPO_ROOT, 'docs', 'screenshots') : null;
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const OWNER = { username: 'kim', display: 'Kim', email: 'kim@example.test', password: 'our nest 2026!' };

let h: SocialHarness;
let chromium: { browser: Browser; close(): Promise<void> };

test.before(async () => {
  h = await startSocialDaemon({ NESTBOX_REGISTRATIONS: 'closed', NESTBOX_COPROC_TIME_SCALE: '10' });
  chromium = await launchChromium();
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
});
test.after(async () => {
  await chromium?.close();
  await h?.stop();
});

async function phone(): Promise<Page> {
  return (await chromium.browser.newContext(PHONE)).newPage();
}
async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `first-run-${name}.png`), fullPage: true });
}
const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? '').trim();

async function setupNetwork(): Promise<{ ssid: string }> {
  for (let tries = 0; tries < 200; tries += 1) {
    const { body } = await h.api(null, 'GET', '/setup/api/status');
    if (body.setup_ap?.active && /^Nestbox-[0-9A-F]{4}$/.test(body.setup_ap.ssid)) return body.setup_ap;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the setup network did not come up');
}

test('a new owner sets the box up from a phone: label, portal, owner, instance name, invite', async () => {
  // 1. The label: its QR code joins the setup network the box runs.
  const ap = await setupNetwork();
  const labelDir = tempDir('nestbox-first-run-label-');
  let key: string;
  try {
    const printed = await runAdmin({ dataDir: h.daemon.dataDir, baseUrl: h.url }, ['label', '--out', labelDir.path]);
    assert.is(printed.status, 0, printed.stderr);
    const png = readFileSync(join(labelDir.path, 'nestbox-label.png'));
    const payload = decodeQrPng(png);
    const match = /^WIFI:T:WPA;S:(.+);P:(.+);;$/.exec(payload);
    assert.ok(match, payload);
    assert.is(match[1], ap.ssid);
    key = match[2];
    // The label as a phone shows it: only for the README's walk-through.
    if (SHOTS) {
      const page = await phone();
      await page.setContent(`<img src="data:image/png;base64,${png.toString('base64')}" style="width:100%">`);
      await shot(page, '1-label');
      await page.context().close();
    }
  } finally {
    labelDir.remove();
  }

  // 2. The setup portal: readable names (Café-Gast is Latin-1 on the air), join the home network.
  const owner = await phone();
  await owner.goto(`${h.url}/setup`);
  const names = owner.locator('#networks button.network .name');
  await names.first().waitFor();
  assert.ok((await names.allTextContents()).includes('Café-Gast'));
  await shot(owner, '2-portal');
  await owner.locator('#networks button.network', { hasText: SIM_NETWORKS.home.ssid }).click();
  await owner.fill('#password', SIM_NETWORKS.home.passphrase);
  await owner.click('#connect');
  await owner.locator('#owner-next:not([hidden])').waitFor({ timeout: 20_000 });
  assert.match(await text(owner, '#result-title'), /Connected to “HomeNet”/);
  await shot(owner, '3-connected');

  // 3. The owner account: a wrong key is refused, the label's key lets the owner in.
  await owner.click('#owner-link');
  await owner.locator('#onboarding:not([hidden])').waitFor();
  assert.ok(await owner.locator('#owner-key-field').isVisible());
  await owner.fill('#owner-username', OWNER.username);
  await owner.fill('#owner-display-name', OWNER.display);
  await owner.fill('#owner-email', OWNER.email);
  await owner.fill('#owner-password', 'short');
  await owner.fill('#owner-setup-key', key);
  await owner.click('#owner-create');
  await owner.locator('#owner-password-error:not([hidden])').waitFor();
  assert.match(await text(owner, '#owner-password-error'), /too short/);
  await owner.fill('#owner-password', OWNER.password);
  await owner.fill('#owner-setup-key', 'abcd-efgh-jkmn');
  await owner.click('#owner-create');
  // The answer to this try, not the message the short password left.
  await owner.locator('#owner-error:not([hidden])', { hasText: /not this box's setup key/ }).waitFor();
  await shot(owner, '4-wrong-key');
  await owner.fill('#owner-setup-key', key);
  await owner.click('#owner-create');
  await owner.locator('#app:not([hidden])').waitFor();
  await owner.locator('#ap-key', { hasText: key }).waitFor();
  assert.is(await text(owner, '#ap-ssid'), ap.ssid);
  await shot(owner, '5-owner-created');

  // 4. The instance's name, and what its public address needs.
  await owner.waitForFunction("document.getElementById('instance-title').value === 'Nestbox'");
  await owner.fill('#instance-title', 'The Family Nest');
  await owner.fill('#instance-description', 'Photos and news from our house.');
  await owner.click('#instance-form button[type=submit]');
  await owner.locator('#instance-saved:not([hidden])').waitFor();
  await owner.click('#check-address');
  await owner.locator('#reachability[data-ready="false"]').waitFor();
  assert.match(await text(owner, '#reach-summary'), /https only/);
  await shot(owner, '6-instance');
  assert.is((await h.api(null, 'GET', '/api/v1/instance')).body.title, 'The Family Nest');

  // 5. An invite link for one person.
  await owner.selectOption('#invite-uses', '1');
  await owner.click('#invite-create');
  const link = owner.locator('#invites .invite-url').first();
  await link.waitFor();
  const url = await link.inputValue();
  assert.match(url, new RegExp(`^${h.url}/invite/`));
  await shot(owner, '7-invite');

  // 6. A second person opens it on their phone and joins, though registrations are closed.
  const cousin = await phone();
  await cousin.goto(url);
  await cousin.locator('#invite-title', { hasText: 'The Family Nest' }).waitFor();
  await cousin.fill('#signup-username', 'cousin');
  await cousin.fill('#signup-email', 'cousin@example.test');
  await cousin.fill('#signup-password', 'cousin pass 123');
  await cousin.check('#signup-agreement');
  await shot(cousin, '8-invite-signup');
  await cousin.click('#signup-create');
  await cousin.locator('#welcome:not([hidden])').waitFor();
  assert.match(await text(cousin, '#welcome-title'), /Welcome, @cousin/);
  await shot(cousin, '9-welcome');

  await owner.reload();
  await owner.locator('#invited li', { hasText: '@cousin' }).waitFor();
  assert.match(await text(owner, '#invites .invite'), /used up · used 1 of 1/);

  // 7. The refusals: the used link, and a second owner.
  const third = await phone();
  const used = await third.goto(url);
  assert.is(used?.status(), 410);
  assert.match(await text(third, '#invite-refused'), /used as many times as it allows/);
  await shot(third, '10-used-invite');
  await third.goto(`${h.url}/dashboard`);
  await third.locator('#login:not([hidden])').waitFor();
  assert.not.ok(await third.locator('#onboarding').isVisible());
  const second = await h.api(null, 'POST', '/api/nestbox/v1/onboarding/owner', {
    username: 'intruder',
    email: 'intruder@example.test',
    password: 'intruder pass 1',
    setup_key: key,
  });
  assert.is(second.status, 404);
  await third.context().close();
  await cousin.context().close();
  await owner.context().close();
});

test.run();
