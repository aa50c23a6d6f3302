/**
 * Every page a new owner meets, on a phone 360 px wide in headless Chromium (no sideways
 * scrolling, nothing the page hides shown anyway, no 404 on any of them, /favicon.ico included),
 * in the order a first run meets them, on one daemon whose setup network is the loopback address:
 * the setup portal (a mistyped password typed again for the same network), the owner form without
 * the setup key, the dashboard, the owner's sign-in, an app's consent page and its code page, an
 * invite, the public pages.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { SIM_NETWORKS } from '../../daemon/coproc/sim/world.js';
import { launchChromium } from '../helpers/chromium.js';
import { freePort } from '../helpers/ports.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

const NARROW = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true };
const OWNER = { username: 'kim', email: 'kim@example.test', password: 'our nest 2026!' };
const HOME = SIM_NETWORKS.home;

let h: SocialHarness;
let chromium: { browser: Browser; close(): Promise<void> };
/** Every file a page loaded (document, stylesheet, script, image, icon) that was not found, by URL. */
const missing: string[] = [];

test.before(async () => {
  [h, chromium] = await Promise.all([
    startSocialDaemon({
      NESTBOX_SETUP_AP_ADDRESS: '127.0.0.1',
      NESTBOX_SETUP_DNS_PORT: String(await freePort()),
      NESTBOX_STABLE_S: '1',
      NESTBOX_COPROC_TIME_SCALE: '10',
    }),
    launchChromium(),
  ]);
});
test.after(async () => {
  await chromium?.close();
  await h?.stop();
});

async function narrowPage(): Promise<Page> {
  const page = await (await chromium.browser.newContext(NARROW)).newPage();
  page.on('response', (response) => {
    // The API's 404s are answers (the onboarding once an owner exists); a page's own files are not.
    const api = ['fetch', 'xhr', 'eventsource'].includes(response.request().resourceType());
    if (response.status() === 404 && !api) missing.push(response.url());
  });
  return page;
}

async function assertFits(page: Page, name: string): Promise<void> {
  const { scroll, client } = await page.evaluate(() => ({
    scroll: (globalThis as any).document.documentElement.scrollWidth as number,
    client: (globalThis as any).document.documentElement.clientWidth as number,
  }));
  assert.is(client, 360, `${name}: the layout viewport is the phone's`);
  assert.ok(scroll <= client, `${name}: ${scroll} px wide on a ${client} px screen`);
}

const text = async (page: Page, selector: string) => ((await page.locator(selector).textContent()) ?? '').trim();

test('the setup page fits, hides what it marks hidden, and offers to type a refused password again', async () => {
  for (let tries = 0; !(await h.api(null, 'GET', '/setup/api/status')).body.setup_ap?.active; tries++) {
    assert.ok(tries < 300, 'the setup network did not come up');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const page = await narrowPage();
  await page.goto(`${h.url}/setup`);
  const home = page.locator('button.network', { hasText: HOME.ssid });
  await home.waitFor({ timeout: 10_000 });
  await assertFits(page, 'setup: networks');
  await home.click();
  // A network picked from the list is not hidden: the checkbox is not offered.
  assert.ok(await page.locator('#hidden').isHidden(), '"This network is hidden" shown for a listed network');
  await assertFits(page, 'setup: join form');
  await page.click('#back');
  await page.click('#manual');
  assert.ok(await page.locator('#hidden').isVisible(), 'a network typed by hand may be hidden');
  await page.click('#back');

  await home.click();
  await page.fill('#password', 'not-the-home-password');
  await page.click('#connect');
  await page.locator('#retype').waitFor({ timeout: 15_000 });
  assert.match(await text(page, '#result-title'), `Could not join “${HOME.ssid}”`);
  assert.ok(await page.locator('#again').isVisible());
  await assertFits(page, 'setup: refused password');
  await page.click('#retype');
  assert.is(await page.inputValue('#ssid'), HOME.ssid);
  assert.is(await text(page, '#join-title'), `Join “${HOME.ssid}”`);
  await page.fill('#password', HOME.passphrase);
  await page.click('#connect');
  await page.locator('#result-title', { hasText: `Connected to “${HOME.ssid}”` }).waitFor({ timeout: 15_000 });
  const words = await page.locator('body').innerText();
  assert.not.match(words, /setup ap|setup_ap|phone\(s\)/i);
  await assertFits(page, 'setup: connected');
  await page.context().close();
});

test('the owner form on the setup network asks no setup key; the dashboard fits and speaks plainly', async () => {
  const page = await narrowPage();
  await page.goto(`${h.url}/dashboard`);
  await page.locator('#onboarding').waitFor();
  assert.ok(await page.locator('#owner-setup-key').isHidden(), 'the setup key is asked on the setup network');
  await assertFits(page, 'dashboard: owner form');
  await page.fill('#owner-username', OWNER.username);
  await page.fill('#owner-email', OWNER.email);
  await page.fill('#owner-password', OWNER.password);
  await page.click('#owner-create');
  await page.locator('#app').waitFor();
  await page.locator('#facts dt', { hasText: 'Setup network' }).waitFor({ timeout: 10_000 });
  await assertFits(page, 'dashboard');
  assert.not.match(await page.locator('#app').innerText(), /setup ap|setup_ap|phone\(s\)/i);
  await page.context().close();
});

test('the owner signs in to the dashboard on a sign-in page, not a consent screen; both fit', async () => {
  const page = await narrowPage();
  await page.goto(`${h.url}/dashboard`);
  await page.click('#oauth-login');
  await page.waitForURL(/\/oauth\/authorize\?/);
  assert.is(await text(page, 'h1'), 'Sign in to your Nestbox');
  assert.is(await page.locator('.scopes').count(), 0);
  await assertFits(page, 'sign-in');
  await page.fill('#login', OWNER.username);
  await page.fill('#password', OWNER.password);
  await page.click('#sign-in');
  await page.locator('#app').waitFor();
  await page.context().close();
});

test("an app's consent page and the code page fit; the code field has a label", async () => {
  const app = (
    await h.api(null, 'POST', '/api/v1/apps', {
      client_name: 'Phone app with a rather long name',
      redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read write',
    })
  ).body;
  const page = await narrowPage();
  await page.goto(
    `${h.url}/oauth/authorize?response_type=code&client_id=${app.client_id}&redirect_uri=urn:ietf:wg:oauth:2.0:oob&scope=read+write`,
  );
  assert.match(await text(page, 'h1'), 'Authorize');
  await assertFits(page, 'consent');
  await page.fill('#login', OWNER.username);
  await page.fill('#password', OWNER.password);
  await page.click('#allow');
  await page.locator('#code').waitFor();
  assert.is(await page.locator('label[for=code]').count(), 1);
  assert.match(await page.getByLabel('Code').inputValue(), /^[\w-]{20,}$/);
  await assertFits(page, 'code');
  await page.context().close();
});

test('the invite page and the public pages fit; no page met a 404, the icon included', async () => {
  const owner = await h.token(OWNER.username, 'read write admin:read admin:write');
  const invite = await h.api(owner, 'POST', '/api/nestbox/v1/invites', { expires_in: 3600, max_uses: 1 });
  assert.is(invite.status, 201, JSON.stringify(invite.body));
  const post = await h.api(owner, 'POST', '/api/v1/statuses', {
    status:
      'A first post from the box, with a long link https://example.test/a/rather/long/path/that/must/wrap/on/a/phone',
  });
  assert.is(post.status, 200);
  // The public front page, once setup mode is over (on the setup network it opens the portal).
  for (let tries = 0; (await h.api(owner, 'GET', '/api/nestbox/v1/state')).body.softap.active; tries++) {
    assert.ok(tries < 200, 'setup mode did not end');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const page = await narrowPage();
  const pages: Array<[string, string]> = [
    ['invite', new URL(invite.body.url).pathname],
    ['landing', '/'],
    ['profile', `/@${OWNER.username}`],
    ['post', `/@${OWNER.username}/${post.body.id}`],
  ];
  for (const [name, path] of pages) {
    const response = await page.goto(`${h.url}${path}`);
    assert.is(response?.status(), 200, name);
    await assertFits(page, name);
  }
  const icon = await page.request.get(`${h.url}/favicon.ico`);
  assert.is(icon.status(), 200);
  assert.is(icon.headers()['content-type'], 'image/x-icon');
  assert.equal([...(await icon.body()).subarray(0, 4)], [0, 0, 1, 0]);
  assert.equal(missing, []);
  await page.context().close();
});

test.run();
