/** The login-and-consent page in a real browser: sign in, authorize, get the code; deny. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { launchChromiumContext } from '../helpers/chromium.js';
import { startSocialDaemon, type SocialHarness } from '../helpers/social.js';

let h: SocialHarness;
let chromium: Awaited<ReturnType<typeof launchChromiumContext>>;

test.before(async () => {
  h = await startSocialDaemon();
  chromium = await launchChromiumContext();
  await h.account('pat');
});
test.after(async () => {
  await chromium?.close();
  await h?.stop();
});

test('a person signs in on the page, authorizes the app and gets a code the app exchanges for a token', async () => {
  const app = (
    await h.api(null, 'POST', '/api/v1/apps', {
      client_name: 'Browser app',
      redirect_uris: 'urn:ietf:wg:oauth:2.0:oob',
      scopes: 'read write',
    })
  ).body;
  const page = await chromium.context.newPage();
  await page.goto(
    `${h.url}/oauth/authorize?response_type=code&client_id=${app.client_id}&redirect_uri=urn:ietf:wg:oauth:2.0:oob&scope=read`,
  );
  assert.is(await page.title(), 'Authorize Browser app · Nestbox');
  assert.is(await page.locator('.scopes li').count(), 1);
  await page.fill('#login', 'pat');
  await page.fill('#password', 'wrong password');
  await page.click('#allow');
  assert.is(await page.locator('.error').textContent(), 'Invalid username, e-mail or password.');
  assert.is(await page.inputValue('#login'), 'pat', 'the login is kept');
  await page.fill('#password', 'pw-pat-123');
  await page.click('#allow');
  const code = await page.inputValue('#code');
  const token = await h.api(null, 'POST', '/oauth/token', {
    grant_type: 'authorization_code',
    client_id: app.client_id,
    client_secret: app.client_secret,
    redirect_uri: 'urn:ietf:wg:oauth:2.0:oob',
    code,
  });
  assert.is(token.status, 200);
  assert.is(token.body.scope, 'read');
  assert.is((await h.api(token.body.access_token, 'GET', '/api/v1/accounts/verify_credentials')).body.username, 'pat');
  await page.close();
});

test('deny sends the browser back to the app with error=access_denied and the state', async () => {
  const callback = 'http://127.0.0.1:9/callback';
  const app = (
    await h.api(null, 'POST', '/api/v1/apps', { client_name: 'Denied app', redirect_uris: callback, scopes: 'read' })
  ).body;
  const page = await chromium.context.newPage();
  let redirected = '';
  await page.route(`${callback}**`, async (route) => {
    redirected = route.request().url();
    await route.fulfill({ status: 200, body: 'back in the app' });
  });
  await page.goto(
    `${h.url}/oauth/authorize?response_type=code&client_id=${app.client_id}&redirect_uri=${encodeURIComponent(callback)}&state=xyz`,
  );
  await page.click('button[value=deny]');
  await page.waitForURL(`${callback}**`);
  const url = new URL(redirected);
  assert.is(url.searchParams.get('error'), 'access_denied');
  assert.is(url.searchParams.get('state'), 'xyz');
  await page.close();
});

test.run();
