/**
 * OAuth in headless Chromium, one daemon and one browser for all: the sign-in and consent page (a
 * wrong password, the code an app exchanges for a token, deny), and a web client served from
 * another origin (a second loopback port) that registers an app, exchanges a code for a token,
 * posts, reads notifications and follows the Link header, all through the browser's CORS checks.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { launchChromiumContext } from '../helpers/chromium.js';
import { startSocialDaemon, type SocialHarness, type TestAccount } from '../helpers/social.js';

let h: SocialHarness;
let chromium: Awaited<ReturnType<typeof launchChromiumContext>>;
let appServer: Server;
let appOrigin: string;
let sam: TestAccount;

const OOB = 'urn:ietf:wg:oauth:2.0:oob';

test.before(async () => {
  h = await startSocialDaemon();
  chromium = await launchChromiumContext();
  await h.account('pat');
  sam = await h.account('sam');
  appServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>web client</title>');
  });
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  appOrigin = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
});
test.after(async () => {
  await chromium?.close();
  await new Promise((resolve) => appServer?.close(resolve));
  await h?.stop();
});

interface Answer {
  status: number;
  body: any;
  link: string | null;
  requestId: string | null;
}

/** fetch() run inside the page: it throws there if the browser refuses the cross-origin answer. */
async function call(page: Page, url: string, init: { method?: string; token?: string; json?: unknown }) {
  return page.evaluate(
    async ({ url, init }): Promise<Answer> => {
      const headers: Record<string, string> = {};
      if (init.token) headers.Authorization = `Bearer ${init.token}`;
      if (init.json !== undefined) headers['Content-Type'] = 'application/json';
      const response = await fetch(url, {
        method: init.method ?? 'GET',
        headers,
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
      return {
        status: response.status,
        body: await response.json(),
        link: response.headers.get('Link'),
        requestId: response.headers.get('X-Request-Id'),
      };
    },
    { url, init },
  );
}

test('a web client on another origin signs in, posts, reads notifications and pages with Link', async () => {
  const page = await chromium.context.newPage();
  await page.goto(appOrigin + '/');
  const app = await call(page, `${h.url}/api/v1/apps`, {
    method: 'POST',
    json: { client_name: 'Web client', redirect_uris: OOB, scopes: 'read write profile' },
  });
  assert.is(app.status, 200);
  assert.ok(app.requestId, 'the request id is readable');

  const consent = await chromium.context.newPage();
  await consent.goto(
    `${h.url}/oauth/authorize?response_type=code&client_id=${app.body.client_id}&redirect_uri=${OOB}&scope=read+write+profile`,
  );
  await consent.fill('#login', 'pat');
  await consent.fill('#password', 'pw-pat-123');
  await consent.click('#allow');
  const code = await consent.inputValue('#code');
  await consent.close();

  const token = await call(page, `${h.url}/oauth/token`, {
    method: 'POST',
    json: {
      grant_type: 'authorization_code',
      client_id: app.body.client_id,
      client_secret: app.body.client_secret,
      redirect_uri: OOB,
      code,
    },
  });
  assert.is(token.status, 200);
  const accessToken = token.body.access_token as string;

  const who = await call(page, `${h.url}/oauth/userinfo`, { token: accessToken });
  assert.is(who.status, 200);
  assert.is(who.body.preferred_username, 'pat');
  assert.is(who.body.iss, `${h.url}/`);

  const posted = await call(page, `${h.url}/api/v1/statuses`, {
    method: 'POST',
    token: accessToken,
    json: { status: 'hello from a web client' },
  });
  assert.is(posted.status, 200);
  assert.is(posted.body.content, '<p>hello from a web client</p>');

  for (const text of ['one', 'two', 'three'])
    assert.is((await h.api(sam.token, 'POST', '/api/v1/statuses', { status: `@pat ${text}` })).status, 200);
  const first = await call(page, `${h.url}/api/v1/notifications?limit=2`, { token: accessToken });
  assert.is(first.status, 200);
  assert.is(first.body.length, 2);
  const next = /<([^>]+)>;\s*rel="next"/.exec(first.link ?? '');
  assert.ok(next, `the Link header is readable: ${first.link}`);
  const second = await call(page, next[1], { token: accessToken });
  assert.is(second.body.length, 1);
  assert.is(second.body[0].status.content.includes('one'), true);

  const refused = await call(page, `${h.url}/api/v1/notifications`, { token: 'not-a-token' });
  assert.is(refused.status, 401, 'an error answer is readable too');
  assert.type(refused.body.error, 'string');
  await page.close();
});

test('a preflight is answered with the requested headers allowed; other paths get no CORS headers', async () => {
  const preflight = await fetch(`${h.url}/api/v1/statuses`, {
    method: 'OPTIONS',
    headers: {
      origin: 'http://elsewhere.test',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,idempotency-key',
    },
  });
  assert.is(preflight.status, 200);
  assert.is(preflight.headers.get('access-control-allow-origin'), '*');
  assert.is(preflight.headers.get('access-control-allow-headers'), 'authorization,content-type,idempotency-key');
  assert.match(preflight.headers.get('access-control-allow-methods')!, /PATCH/);
  assert.match(preflight.headers.get('access-control-expose-headers')!, /Link/);
  const page = await fetch(`${h.url}/oauth/authorize`, { headers: { origin: 'http://elsewhere.test' } });
  assert.is(page.headers.get('access-control-allow-origin'), null);
  const missing = await fetch(`${h.url}/api/v1/statuses/999999`, { headers: { origin: 'http://elsewhere.test' } });
  assert.is(missing.status, 404);
  assert.is(missing.headers.get('access-control-allow-origin'), '*');
  const meta = (await h.api(null, 'GET', '/.well-known/oauth-authorization-server')).body;
  assert.is(meta.userinfo_endpoint, `${h.url}/oauth/userinfo`);
});

test('userinfo needs the profile scope and a user', async () => {
  const readOnly = await h.token('pat', 'read');
  assert.is((await h.api(readOnly, 'GET', '/oauth/userinfo')).status, 403);
  const profile = await h.token('pat', 'profile');
  const info = await h.api(profile, 'POST', '/oauth/userinfo');
  assert.is(info.status, 200);
  assert.is(info.body.sub, `${h.url}/users/pat`);
  assert.is(info.body.profile, `${h.url}/@pat`);
  assert.match(info.body.picture, /^http/);
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
