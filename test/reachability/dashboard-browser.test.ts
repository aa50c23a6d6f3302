/**
 * The dashboard's "Make the box reachable" in headless Chromium on the owner's phone at home (root,
 * in the virtual internet): the provider choice shows its own fields (dyndns2 or the owner's DNS
 * server with RFC 2136) and a refused setting is said on the page; the owner enters a name and a
 * dynamic-DNS login and watches each step's words change until the instance is at https://<name>,
 * with a line for each address family (IPv6 not published, and why, on this IPv4-only network);
 * the router then stops forwarding (UPnP off), "Try again now" runs the steps with the saved
 * settings and the page lists the forwarding to set up by hand; "Turn off" ends it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { launchPhoneBrowser, type PhoneBrowser } from '../helpers/virtual-home/browser.js';
import { DYNDNS } from '../helpers/virtual-internet/index.js';
import { NAME, box, home, internet, useReachabilityScenario, view } from '../helpers/virtual-internet/scenario.js';

useReachabilityScenario(3600);

let browser: PhoneBrowser;
let page: Page;

test.before(async () => {
  // The phone's browser inside the home router's namespace: on the home network, beside the box.
  browser = await launchPhoneBrowser(home.names.home, home.dir.path);
  page = await browser.newPage();
});

test.after(async () => {
  // The set-up's own after hook ran first and ended what ran in the namespaces, the browser with it.
  await browser?.close().catch(() => undefined);
});

/** The words the page shows for one step ("Certificate for https://: done — valid until …"). */
const stepWords = (step: string) => page.locator(`#reach-steps li[data-step=${step}]`);

test('the owner signs in on the dashboard; the provider choice shows its own fields; a refused setting is said on the page', async () => {
  await page.goto(`http://${box.address}/dashboard`);
  await page.click('#login summary');
  await page.fill('#token', box.ownerToken);
  await page.click('#token-form button');
  await page.locator('#reach-form').waitFor();
  assert.ok(await page.locator('#reach-steps').isHidden(), 'nothing to follow before a name is entered');
  assert.ok(await page.locator('#reach-off').isHidden());

  assert.ok(await page.locator('#reach-dyndns2').isHidden());
  assert.ok(await page.locator('#reach-rfc2136').isHidden());
  await page.selectOption('#reach-provider', 'rfc2136');
  assert.ok(await page.locator('#reach-dns-server').isVisible());
  assert.ok(await page.locator('#reach-provider-url').isHidden());
  assert.equal(
    await page
      .locator('#reach-key-algorithm option')
      .evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value)),
    ['hmac-sha256', 'hmac-sha512', 'hmac-sha384', 'hmac-sha224', 'hmac-sha1', 'hmac-md5'],
  );
  await page.fill('#reach-name', NAME);
  await page.fill('#reach-dns-server', '11.77.1.54');
  await page.fill('#reach-dns-zone', 'example.test');
  await page.fill('#reach-key-name', 'nestbox-box');
  await page.fill('#reach-key-secret', 'not base64!');
  await page.click('#reach-form button[type=submit]');
  const error = page.locator('#reach-error');
  await error.waitFor();
  assert.match((await error.textContent()) ?? '', /key_secret must be the key's secret in base64/);
  assert.is((await view()).name, null, 'nothing was saved');

  await page.selectOption('#reach-provider', 'dyndns2');
  assert.ok(await page.locator('#reach-rfc2136').isHidden());
  assert.ok(await page.locator('#reach-provider-url').isVisible());
});

test("a name and a dynamic-DNS login: each step's words change until the instance is at https://<name>", async () => {
  await page.fill('#reach-provider-url', `http://${DYNDNS.name}:${DYNDNS.port}/nic/update`);
  await page.fill('#reach-provider-user', DYNDNS.user);
  await page.fill('#reach-provider-password', DYNDNS.password);
  // Every wording the certificate step takes on the page, in order.
  await page.evaluate(`{
    const seen = (globalThis.certificateWords = []);
    const list = document.getElementById('reach-steps');
    new MutationObserver(() => {
      const words = list.querySelector('li[data-step=certificate] strong')?.textContent;
      if (words && words !== seen.at(-1)) seen.push(words);
    }).observe(list, { childList: true, subtree: true });
  }`);
  await page.click('#reach-form button[type=submit]');
  // The owner chose plain http for the provider: the page warns that the login travels in clear.
  await page.locator('#reach-http-warning').waitFor();
  await page.locator('#reach-steps li').first().waitFor();
  assert.ok(await page.locator('#reach-error').isHidden(), (await page.locator('#reach-error').textContent()) ?? '');
  await page.locator('#reach-public', { hasText: `Your instance is at https://${NAME}` }).waitFor({ timeout: 90_000 });
  // The page asks every 3 s: the end of the flow may need one more round to show the last step.
  await stepWords('switch').filter({ hasText: 'done' }).waitFor({ timeout: 10_000 });
  assert.match(
    (await stepWords('dns').textContent()) ?? '',
    /^The name points at your home: done — social\.example\.test points to 11\.77\.0\.2/,
  );
  assert.match(
    (await stepWords('port_mapping').textContent()) ?? '',
    /^The router lets the internet in: done — the router forwards port 443 and port 80/,
  );
  assert.match(
    (await stepWords('certificate').textContent()) ?? '',
    /^Certificate for https:\/\/: done — valid until \d{4}-/,
  );
  assert.match((await stepWords('switch').textContent()) ?? '', /^The instance's public address: done/);
  assert.match((await page.locator('#reach-public').textContent()) ?? '', /certificate valid until \d{4}-/);
  // One line per address family: this home network gives the box no IPv6 address.
  await page.locator('#reach-families li[data-family=ipv4]', { hasText: 'yes' }).waitFor({ timeout: 10_000 });
  assert.equal(await page.locator('#reach-families li').allTextContents(), [
    'Reachable over IPv4: yes — reachable over IPv4 at 11.77.0.2',
    'Reachable over IPv6: no — not published: the home network gives the box no global IPv6 address',
  ]);
  const words = await page.evaluate(() => (globalThis as unknown as { certificateWords: string[] }).certificateWords);
  assert.is(words[0], 'Certificate for https://: waiting', JSON.stringify(words));
  assert.is(words.at(-1), 'Certificate for https://: done', JSON.stringify(words));
  // The secret went to the box and left the page.
  assert.is(await page.locator('#reach-provider-password').inputValue(), '');
  assert.match(
    (await page.locator('#reach-saved-provider').textContent()) ?? '',
    /a dynamic-DNS provider \(dyndns\.example\.test:8081\)/,
  );
  assert.not.ok((await page.content()).includes(DYNDNS.password), 'the password is shown nowhere');
  assert.ok(await page.locator('#reach-manual').isHidden());
});

test('the router stops forwarding (UPnP off): "Try again now" says so at once and lists the forwarding to set up by hand', async () => {
  await internet.rebootRouter(false);
  await page.click('#reach-retry');
  await page.locator('#reach-manual').waitFor({ timeout: 60_000 });
  // The page asked the box to try again with the saved settings, sending no secret.
  const retried = box.daemon.logs.filter(
    (line) => line.msg === 'request' && line.path === '/api/nestbox/v1/reachability/retry',
  );
  assert.equal(
    retried.map((line) => [line.method, line.status]),
    [['POST', 202]],
  );
  assert.ok(await page.locator('#reach-error').isHidden());
  assert.match(
    (await stepWords('port_mapping').textContent()) ?? '',
    /^The router lets the internet in: not working yet — .*neither UPnP nor NAT-PMP/,
  );
  assert.match(
    (await page.locator('#reach-manual-why').textContent()) ?? '',
    /^Your router did not forward the ports when the box asked: .*neither UPnP nor NAT-PMP/,
  );
  assert.equal(await page.locator('#reach-manual-rules li').allTextContents(), [
    `TCP port 443 → ${box.address}, port 443`,
    `TCP port 80 → ${box.address}, port 80`,
  ]);
  // Degraded, not broken: the instance keeps its https address and its certificate.
  assert.match((await page.locator('#reach-public').textContent()) ?? '', `Your instance is at https://${NAME}`);
});

test('"Turn off": the steps and the public address go, the instance is back at home', async () => {
  await page.click('#reach-off');
  await page.locator('#reach-steps').waitFor({ state: 'hidden', timeout: 15_000 });
  assert.ok(await page.locator('#reach-families').isHidden());
  assert.is(await page.locator('#reach-public').textContent(), '');
  assert.ok(await page.locator('#reach-off').isHidden());
  assert.is(await page.locator('#reach-name').inputValue(), '');
  const off = await view();
  assert.is(off.name, null);
  assert.is(off.public_url, null);
  const instance = await box.daemon.json('/api/v2/instance');
  assert.is(instance.body.domain, 'nestbox.local');
  const retry = await box.daemon.json('/api/nestbox/v1/reachability/retry', box.owner({ method: 'POST' }));
  assert.equal([retry.status, retry.body], [409, { error: 'Nothing to retry: enter a name first' }]);
  const anonymous = await box.daemon.json('/api/nestbox/v1/reachability/retry', { method: 'POST' });
  assert.is(anonymous.status, 401);
});

test.run();
