/**
 * The owner's dashboard in the whole daemon, driven through headless Chromium: the real OAuth
 * login of the instance (app registration, /oauth/authorize with PKCE and state, the owner's
 * sign-in page without a consent step, the code exchange), the device state live, a saved network added, and a firmware
 * upload to the embedded simulator with the progress bar; an open report handled; a non-owner
 * account is turned away.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { assertInstalled, launchChromium } from '../helpers/chromium.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

let h: SocialHarness;
let chromium: { browser: Browser; close(): Promise<void> };

test.before(async () => {
  assertInstalled(); // before the daemon starts: a missing browser must not leave it running
  [h, chromium] = await Promise.all([startSocialDaemon({ NESTBOX_COPROC_TIME_SCALE: '20' }), launchChromium()]);
  await h.account('boss', { owner: true, scopes: 'read write admin:read admin:write' });
  await h.account('alice');
});
test.after(async () => {
  await chromium?.close();
  await h?.stop();
});

/** Opens the dashboard, presses "Sign in" and signs in on the instance's sign-in page. */
async function logIn(
  page: Page,
  login: string,
  password: string,
  options: { typoFirst?: boolean } = {},
): Promise<void> {
  await page.goto(`${h.url}/dashboard`);
  await page.click('#oauth-login');
  await page.waitForURL(/\/oauth\/authorize\?/);
  const request = new URL(page.url()).searchParams;
  assert.is(request.get('code_challenge_method'), 'S256');
  assert.match(request.get('code_challenge') ?? '', /^[\w-]{43}$/);
  assert.match(request.get('state') ?? '', /^[\w-]{16,}$/);
  // The box's own dashboard: a sign-in, not a consent screen naming an app and its scopes.
  assert.is(await page.locator('h1').textContent(), 'Sign in to your Nestbox');
  assert.is(await page.locator('.scopes').count(), 0);
  assert.is(await page.locator('button[value=deny]').count(), 0);
  if (options.typoFirst) {
    // A wrong password re-renders the page with the request (state, PKCE challenge) kept.
    await page.fill('#login', login);
    await page.fill('#password', `${password}-typo`);
    await page.click('#sign-in');
    await page.locator('.error', { hasText: 'Invalid username, e-mail or password' }).waitFor();
    assert.is(await page.locator('h1').textContent(), 'Sign in to your Nestbox');
  }
  await page.fill('#login', login);
  await page.fill('#password', password);
  await page.click('#sign-in');
  await page.waitForURL(/\/dashboard\/?$/);
}

test('the owner logs in through the instance, sees the state live, adds a network and updates the firmware', async () => {
  const context = await chromium.browser.newContext();
  const page = await context.newPage();
  try {
    await logIn(page, 'boss@example.test', 'pw-boss-123', { typoFirst: true });
    await page.locator('#app').waitFor();
    assert.ok(await page.locator('#login').isHidden());
    // The page addresses the box with a token of its own from the code exchange, not a pasted one.
    const token = await page.evaluate(() => (globalThis as any).localStorage.getItem('nestbox.dashboard.token'));
    assert.type(token, 'string');
    assert.is((await h.api(token, 'GET', '/api/nestbox/v1/state')).status, 200);

    // With no saved network the box goes to setup mode by itself; the page follows it live.
    await page.locator('#summary[data-state=setup_ap]').waitFor({ timeout: 8000 });
    assert.match((await page.locator('#ap-ssid').textContent()) ?? '', /\S/);

    // A saved network added on the page: listed (its passphrase nowhere), and the box joins it.
    await page.fill('#new-ssid', 'HomeNet');
    await page.fill('#new-password', 'nestbox-home-2024');
    await page.click('#add-network button');
    await page.locator('#networks li span', { hasText: 'HomeNet' }).waitFor({ timeout: 5000 });
    assert.is(await page.locator('#new-password').inputValue(), '');
    assert.ok(!(await page.content()).includes('nestbox-home-2024'), 'the passphrase is shown nowhere on the page');
    await page.locator('#summary[data-state=connected]').waitFor({ timeout: 8000 });
    assert.match((await page.locator('#summary').textContent()) ?? '', /Online via “HomeNet”/);

    // A second one, moved first, then forgotten again.
    await page.fill('#new-ssid', 'AtticLab');
    await page.fill('#new-password', 'attic-secret-77');
    await page.check('#new-hidden');
    await page.click('#add-network button');
    await page.locator('#networks li span', { hasText: 'AtticLab (hidden)' }).waitFor({ timeout: 5000 });
    await page.click('button[aria-label="Move AtticLab up"]');
    await page.locator('#networks li:first-child span', { hasText: 'AtticLab' }).waitFor({ timeout: 5000 });
    page.once('dialog', (dialog) => {
      void dialog.accept();
    });
    await page.locator('#networks li', { hasText: 'AtticLab' }).locator('button', { hasText: 'Remove' }).click();
    await page.locator('#networks li span', { hasText: 'AtticLab' }).waitFor({ state: 'detached', timeout: 5000 });
    assert.equal(await page.locator('#networks li span').allTextContents(), ['HomeNet']);

    // Setup mode, transmit power and power save from the page; the state stream shows both.
    await page.click('#setup-mode');
    await page
      .locator('#facts dd', { hasText: /^open until nobody uses it \(no phone on it\)$/ })
      .waitFor({ timeout: 5000 });
    assert.ok(await page.locator('#setup-mode').isHidden(), 'setup mode is not offered while it is on');
    await page.fill('#tx', '11');
    await page.click('#tx-form button');
    await page.locator('#facts dd', { hasText: /^11 dBm$/ }).waitFor({ timeout: 5000 });
    await page.selectOption('#ps', 'max_modem');
    await page.click('#ps-form button');
    await page.locator('#facts dd', { hasText: /^max_modem$/ }).waitFor({ timeout: 5000 });
    assert.ok(await page.locator('#radio-error').isHidden());
    // The storage monitor's state: free space of the data disk, no warning on a roomy one.
    await page.locator('#facts dd', { hasText: /^\d+ MB free of \d+ MB$/ }).waitFor({ timeout: 5000 });
    assert.ok(await page.locator('#storage-warning').isHidden());

    const image = Buffer.alloc(12_000, 7);
    image[0] = 0xe9; // the ESP image magic byte
    await page.setInputFiles('#ota-file', {
      name: 'nestbox-coproc.bin',
      mimeType: 'application/octet-stream',
      buffer: image,
    });
    await page.click('#ota-form button');
    await page.locator('#ota-text', { hasText: 'Update done.' }).waitFor({ timeout: 15_000 });
    assert.is(await page.locator('#ota-progress').evaluate((bar) => (bar as any).value), 100);
    assert.ok(await page.locator('#ota-progress').isVisible());
    const { body } = await h.api(token, 'GET', '/api/nestbox/v1/state');
    assert.equal([body.coprocessor.ota.phase, body.coprocessor.ota.bytes], ['done', 12_000]);

    // Logging out revokes the page's token on the instance, not only in the browser.
    await page.click('#logout');
    await page.locator('#login').waitFor();
    for (let tries = 0; (await h.api(token, 'GET', '/api/nestbox/v1/state')).status !== 401; tries++) {
      assert.ok(tries < 50, 'the token still works after logging out');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await context.close();
  }
});

test('the owner sees an open report with its comment and post, and marks it handled', async () => {
  const reporter = await h.account('rita');
  const reported = await h.account('spammy');
  const post = (await h.api(reported.token, 'POST', '/api/v1/statuses', { status: 'cheap watches here' })).body;
  const made = await h.api(reporter.token, 'POST', '/api/v1/reports', {
    account_id: reported.id,
    status_ids: [post.id],
    comment: 'selling watches to everyone',
    category: 'spam',
  });
  assert.is(made.status, 200);
  const context = await chromium.browser.newContext();
  const page = await context.newPage();
  try {
    await logIn(page, 'boss@example.test', 'pw-boss-123');
    const item = page.locator('#report-list .report', { hasText: 'selling watches to everyone' });
    await item.waitFor();
    assert.match((await item.textContent()) ?? '', /@spammy, reported by @rita · spam/);
    assert.is(await item.locator('a.report-post').getAttribute('href'), post.url);
    await item.locator('button', { hasText: 'Mark as handled' }).click();
    await page.locator('#report-list .hint', { hasText: 'No open reports.' }).waitFor();
    const reviewer = await h.token('boss', 'admin:read');
    const handled = await h.api(reviewer, 'GET', `/api/v1/admin/reports/${made.body.id}`);
    assert.is(handled.body.action_taken, true, 'resolved on the instance, not only on the page');
  } finally {
    await context.close();
  }
});

test('an account that is not the owner is told it cannot use the dashboard', async () => {
  const context = await chromium.browser.newContext();
  const page = await context.newPage();
  try {
    await logIn(page, 'alice', 'pw-alice-123');
    const error = page.locator('#login-error');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /only the box owner/i);
    assert.ok(await page.locator('#app').isHidden());
    assert.is(await page.evaluate(() => (globalThis as any).localStorage.getItem('nestbox.dashboard.token')), null);
  } finally {
    await context.close();
  }
});

test.run();
